package decide

import (
	"fmt"
	"math"
)

// configFromRaw reads the typed view of a policy document from its generic
// decoding. Load decodes every document into a map anyway (for show and the
// shell sandbox); reading the few typed fields from it by hand spares a
// short-lived hook process encoding/json's reflection setup for a second,
// nested type, which cost more than the rest of loading. Types are
// schema-checked before this runs; a wrong type is still an error here.
func configFromRaw(raw map[string]any) (fileConfig, error) {
	var c fileConfig
	r := rawReader{}
	c.Extends = r.str(raw, "extends")
	fs := r.obj(raw, "filesystem")
	c.Filesystem.AllowRead = r.strs(fs, "allowRead")
	c.Filesystem.DenyRead = r.strs(fs, "denyRead")
	c.Filesystem.AllowWrite = r.strs(fs, "allowWrite")
	c.Filesystem.DenyWrite = r.strs(fs, "denyWrite")
	c.Filesystem.DefaultDenyRead = r.boolp(fs, "defaultDenyRead")
	c.Filesystem.StrictDenyRead = r.boolp(fs, "strictDenyRead")
	c.Filesystem.AllowGitConfig = r.boolp(fs, "allowGitConfig")
	pk := r.obj(raw, "picket")
	c.Picket.Mode = r.strp(pk, "mode")
	c.Picket.Blocklist = r.strs(pk, "blocklist")
	c.Picket.Permissions = r.perms(pk, "permissions")
	wg := r.obj(pk, "writeGuards")
	if n := r.intp(wg, "maxBytes"); n != nil {
		v := int64(*n)
		c.Picket.WriteGuards.MaxBytes = &v
	}
	c.Picket.WriteGuards.DenyExtensions = r.strs(wg, "denyExtensions")
	c.Picket.WriteGuards.ReadBeforeEdit = r.boolp(wg, "readBeforeEdit")
	c.Picket.CaseInsensitive = pk["caseInsensitive"]
	au := r.obj(pk, "audit")
	c.Picket.Audit.Path = r.strp(au, "path")
	c.Picket.Audit.LogAllows = r.boolp(au, "logAllows")
	c.Picket.Audit.LogCommands = r.boolp(au, "logCommands")
	c.Picket.Audit.MaxAgeDays = r.intp(au, "maxAgeDays")
	c.Picket.Audit.MaxSizeMB = r.intp(au, "maxSizeMB")
	pr := r.obj(pk, "prompt")
	c.Picket.Prompt.Surface = r.strp(pr, "surface")
	c.Picket.Prompt.TimeoutSeconds = r.intp(pr, "timeoutSeconds")
	c.Picket.Prompt.BatchAfter = r.intp(pr, "batchAfter")
	sb := r.obj(pk, "sandbox")
	c.Picket.Sandbox.StripEnv = r.strs(sb, "stripEnv")
	c.Picket.Sandbox.KeepEnv = r.strs(sb, "keepEnv")
	c.Picket.Sandbox.ExpandMaxDepth = r.intp(sb, "expandMaxDepth")
	c.Picket.Sandbox.ExpandMaxEntries = r.intp(sb, "expandMaxEntries")
	return c, r.err
}

// rawReader reads typed values out of a generic JSON decoding, keeping the
// first type error. A missing or null member reads as unset.
type rawReader struct{ err error }

func (r *rawReader) fail(key, want string) {
	if r.err == nil {
		r.err = fmt.Errorf("%s: want %s", key, want)
	}
}

func (r *rawReader) obj(m map[string]any, key string) map[string]any {
	switch v := m[key].(type) {
	case nil:
		return nil
	case map[string]any:
		return v
	}
	r.fail(key, "an object")
	return nil
}

func (r *rawReader) str(m map[string]any, key string) string {
	if p := r.strp(m, key); p != nil {
		return *p
	}
	return ""
}

func (r *rawReader) strp(m map[string]any, key string) *string {
	switch v := m[key].(type) {
	case nil:
		return nil
	case string:
		return &v
	}
	r.fail(key, "a string")
	return nil
}

func (r *rawReader) boolp(m map[string]any, key string) *bool {
	switch v := m[key].(type) {
	case nil:
		return nil
	case bool:
		return &v
	}
	r.fail(key, "true or false")
	return nil
}

func (r *rawReader) intp(m map[string]any, key string) *int {
	switch v := m[key].(type) {
	case nil:
		return nil
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
			n := int(v)
			return &n
		}
	}
	r.fail(key, "an integer")
	return nil
}

func (r *rawReader) strs(m map[string]any, key string) []string {
	switch v := m[key].(type) {
	case nil:
		return nil
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				r.fail(key, "a list of strings")
				return nil
			}
			out = append(out, s)
		}
		return out
	}
	r.fail(key, "a list of strings")
	return nil
}

func (r *rawReader) perms(m map[string]any, key string) []Permission {
	list, ok := m[key].([]any)
	if !ok {
		if m[key] != nil {
			r.fail(key, "a list of rules")
		}
		return nil
	}
	out := make([]Permission, 0, len(list))
	for _, e := range list {
		o, ok := e.(map[string]any)
		if !ok {
			r.fail(key, "a list of rules")
			return nil
		}
		pm := Permission{Pattern: r.str(o, "pattern"), Permission: Level(r.str(o, "permission")), Type: r.str(o, "type")}
		if n := r.intp(o, "priority"); n != nil {
			pm.Priority = *n
		}
		out = append(out, pm)
	}
	return out
}
