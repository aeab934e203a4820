// Command echo is the baseline of picket serve's benchmark: it answers each
// NDJSON request line with {"id":…,"ok":true} and does nothing else, over
// the same kind of pipe, so the benchmark can tell the sidecar's own cost
// from the pipe's and the client's.
package main

import (
	"bufio"
	"encoding/json"
	"os"
)

func main() {
	r := bufio.NewReaderSize(os.Stdin, 64<<10)
	w := bufio.NewWriterSize(os.Stdout, 64<<10)
	for {
		line, err := r.ReadSlice('\n')
		if len(line) > 0 {
			var req struct {
				ID json.RawMessage `json:"id"`
			}
			json.Unmarshal(line, &req)
			if req.ID == nil {
				req.ID = json.RawMessage("null")
			}
			w.WriteString(`{"id":`)
			w.Write(req.ID)
			w.WriteString(`,"ok":true}` + "\n")
			if r.Buffered() == 0 {
				w.Flush()
			}
		}
		if err != nil {
			w.Flush()
			return
		}
	}
}
