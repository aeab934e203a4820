package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestValidateRefusesAFIFO: validate FILE reads as every policy read does,
// so a named pipe is an error at once, not a hang.
func TestValidateRefusesAFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fence.jsonc")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan struct{})
	var stderr string
	var code int
	go func() {
		_, stderr, code = runCLI(nil, "validate", fifo)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("validate on a FIFO did not return")
	}
	if code != 2 || !strings.Contains(stderr, "regular file") {
		t.Errorf("validate FIFO = %d, %q; want 2 and an error saying a policy is a regular file", code, stderr)
	}
}
