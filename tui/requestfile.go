package tui

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// maxRequest bounds the request JSON picket prompt reads.
const maxRequest = 1 << 20

// ReadRequest reads the request picket prompt is to ask about from in
// (named name in errors): one JSON object naming a path, at most 1 MiB.
func ReadRequest(in io.Reader, name string) (Request, error) {
	data, err := io.ReadAll(io.LimitReader(in, maxRequest+1))
	if err != nil {
		return Request{}, fmt.Errorf("failed to read the prompt request from %s: %w", name, err)
	}
	if len(data) > maxRequest {
		return Request{}, fmt.Errorf("prompt request in %s is larger than %d bytes", name, maxRequest)
	}
	var r Request
	if err := json.Unmarshal(data, &r); err != nil {
		return Request{}, fmt.Errorf("failed to parse the prompt request in %s: %w", name, err)
	}
	if r.Path == "" && r.Resolved == "" && len(r.Batch) == 0 {
		return Request{}, errors.New("prompt request names no path")
	}
	return r, nil
}

// WriteAnswerFile writes data to a temporary file beside path and
// renames it into place.
func WriteAnswerFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("failed to write the answer: %w", err)
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("failed to write the answer: %w", err)
	}
	return nil
}
