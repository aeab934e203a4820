package lint

import (
	"fmt"

	"github.com/picketdev/picket/egress"
	"github.com/picketdev/picket/schema"
)

// userContent are hosts that serve whatever anyone puts there, and take
// it: paste and file-drop sites, request catchers and tunnels, chat
// webhooks, forms, and the big object stores and raw-file hosts, where
// anyone can make a bucket or repository. An allowed entry that names one
// lets a command send the workspace to a stranger (a POST, an upload) and
// fetch a stranger's instructions. A name under a wildcard service stands
// for all of it ("picket-canary.ngrok.io" for "*.ngrok.io"). The list is
// the services of that kind seen in exfiltration write-ups, not every
// such host: code hosts themselves (github.com, gitlab.com) and package
// registries are left out, since builds need them (a package registry
// takes uploads too, but only from an account's token).
var userContent = []struct{ host, what string }{
	{"raw.githubusercontent.com", "raw files of any GitHub repository"},
	{"gist.githubusercontent.com", "anyone's gists"},
	{"gist.github.com", "anyone's gists"},
	{"objects.githubusercontent.com", "anyone's release assets and uploads"},
	{"pastebin.com", "a paste site"},
	{"paste.ee", "a paste site"},
	{"hastebin.com", "a paste site"},
	{"dpaste.org", "a paste site"},
	{"rentry.co", "a paste site"},
	{"ghostbin.site", "a paste site"},
	{"transfer.sh", "a file-drop site"},
	{"file.io", "a file-drop site"},
	{"0x0.st", "a file-drop site"},
	{"files.catbox.moe", "a file-drop site"},
	{"litterbox.catbox.moe", "a file-drop site"},
	{"tmpfiles.org", "a file-drop site"},
	{"temp.sh", "a file-drop site"},
	{"webhook.site", "a request catcher"},
	{"requestbin.net", "a request catcher"},
	{"picket-canary.m.pipedream.net", "a request catcher"},
	{"picket-canary.oast.fun", "an out-of-band interaction catcher"},
	{"picket-canary.burpcollaborator.net", "an out-of-band interaction catcher"},
	{"picket-canary.ngrok.io", "a tunnel to anyone's machine"},
	{"picket-canary.ngrok-free.app", "a tunnel to anyone's machine"},
	{"picket-canary.trycloudflare.com", "a tunnel to anyone's machine"},
	{"picket-canary.loca.lt", "a tunnel to anyone's machine"},
	{"hooks.slack.com", "chat webhooks"},
	{"discord.com", "chat webhooks"},
	{"discordapp.com", "chat webhooks"},
	{"docs.google.com", "anyone's forms and documents"},
	{"s3.amazonaws.com", "anyone's S3 buckets"},
	{"picket-canary.s3.amazonaws.com", "anyone's S3 buckets"},
	{"storage.googleapis.com", "anyone's Cloud Storage buckets"},
	{"picket-canary.blob.core.windows.net", "anyone's Azure blobs"},
}

// checkNetwork warns about network.allowedDomains entries that let a
// command send data anywhere: "*", and entries that name a host serving
// anyone's content. The entry is tested against each such host with the
// proxy's own matcher, so lint and the proxy never disagree on what an
// entry names.
func checkNetwork(t *target) []Warning {
	sec, _ := t.loaded.Raw["network"].(map[string]any)
	var out []Warning
	for _, text := range stringList(sec["allowedDomains"]) {
		e, err := egress.ParseEntry(text)
		if err != nil {
			continue // a load error already
		}
		file, line, col := t.networkPosition("allowedDomains", text)
		w := Warning{File: file, Line: line, Col: col}
		if e.IsAll() {
			w.Code = CodeNetworkAll
			w.Msg = fmt.Sprintf("network.allowedDomains entry %q lets sandboxed commands reach every domain: any command can send the workspace anywhere; list the hosts your tools need instead", text)
			out = append(out, w)
			continue
		}
		p := egress.Policy{Allow: []egress.Entry{e}}
		port := e.Port
		if port == 0 {
			port = 443
		}
		for _, uc := range userContent {
			h, err := egress.ParseHost(uc.host)
			if err != nil || p.Judge(h, port).Outcome != egress.Allowed {
				continue
			}
			w.Code = CodeNetworkUserContent
			w.Msg = fmt.Sprintf("network.allowedDomains entry %q lets sandboxed commands reach %s (%s): anyone can publish there and read what a command sends; allow it only for the one command that needs it (picket's prompt: this command)", text, uc.host, uc.what)
			out = append(out, w)
			break
		}
	}
	return out
}

// networkPosition finds an entry of network.<key> in the first file of
// the chain that lists it (the merge keeps the first).
func (t *target) networkPosition(key, text string) (file string, line, col int) {
	chain := t.loaded.Chain
	for _, f := range chain {
		d := t.doc(f)
		if d == nil {
			continue
		}
		list, _ := lookup(d.v, []string{"network", key}).([]any)
		for i, v := range list {
			if v == text {
				line, col := schema.Position(d.src, fmt.Sprintf("/network/%s/%d", key, i))
				return f, line, col
			}
		}
	}
	return chain[len(chain)-1], 0, 0
}

func stringList(v any) []string {
	l, _ := v.([]any)
	var out []string
	for _, x := range l {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
