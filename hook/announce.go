package hook

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Announcement is what an agent's in-process plugin told picket serve
// when the agent loaded it. An agent may skip a plugin that fails to load
// without a word (opencode does), and then runs unfenced: the last
// announcement, beside the agent's own record of its last run, is how
// picket doctor tells the two apart.
type Announcement struct {
	Agent     string    `json:"agent"`
	Plugin    string    `json:"plugin"`             // the file the agent loaded
	Version   string    `json:"version"`            // the plugin's own version
	SHA256    string    `json:"sha256,omitempty"`   // of the file as the plugin read itself
	Directory string    `json:"directory"`          // the session directory it was loaded for
	Worktree  string    `json:"worktree,omitempty"` // the project root the agent named
	Picket    string    `json:"picket"`             // the version of the picket serve it spoke to
	PID       int       `json:"pid"`                // the agent's process
	Time      time.Time `json:"time"`
}

// AnnouncementFile is where the last announcement of agent is kept in
// picket's state dir.
func AnnouncementFile(stateDir, agent string) string {
	return filepath.Join(stateDir, "loaded", agent+".json")
}

// WriteAnnouncement keeps a as its agent's last announcement, replacing
// the one before whole (a reader never sees half of it).
func WriteAnnouncement(stateDir string, a Announcement) error {
	if a.Agent == "" || filepath.Base(a.Agent) != a.Agent {
		return fmt.Errorf("announcement names no agent (%q)", a.Agent)
	}
	b, err := json.Marshal(a)
	if err != nil {
		return err
	}
	file := AnnouncementFile(stateDir, a.Agent)
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+a.Agent+".tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(append(b, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), file)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("failed to record the announcement: %w", err)
	}
	return nil
}

// LastAnnouncement is the last announcement of agent's plugin; an error
// wrapping fs.ErrNotExist when it never announced itself.
func LastAnnouncement(stateDir, agent string) (Announcement, error) {
	var a Announcement
	b, err := os.ReadFile(AnnouncementFile(stateDir, agent))
	if err != nil {
		return a, err
	}
	if err := json.Unmarshal(b, &a); err != nil {
		return a, fmt.Errorf("%s: %w", AnnouncementFile(stateDir, agent), err)
	}
	return a, nil
}
