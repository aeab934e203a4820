package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// StartGemini starts a server that plays script as the Gemini API
// (POST /v1beta/models/<model>:streamGenerateContent?alt=sse, or
// :generateContent), for Gemini CLI (GOOGLE_GEMINI_BASE_URL). A [ToolUse]
// becomes a functionCall part carrying the call's id; the results come
// back as functionResponse parts. Close it when done.
func StartGemini(script []Turn) (*Model, error) { return start(gemini{}, script) }

type gemini struct{}

// geminiPart is the part of a content part the server reads.
type geminiPart struct {
	FunctionCall *struct {
		ID string `json:"id"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID       string          `json:"id"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
}

// geminiRequest is the part of a generateContent request the server reads.
type geminiRequest struct {
	Contents []struct {
		Role  string       `json:"role"`
		Parts []geminiPart `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []json.RawMessage `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType string `json:"responseMimeType"`
	} `json:"generationConfig"`
}

func (gemini) endpoint(r *http.Request) bool {
	return r.Method == http.MethodPost &&
		(strings.HasSuffix(r.URL.Path, ":streamGenerateContent") || strings.HasSuffix(r.URL.Path, ":generateContent"))
}

func (gemini) read(r *http.Request, body []byte) (exchange, error) {
	var req geminiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return exchange{}, fmt.Errorf("bad json: %v", err)
	}
	model := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
	model, _, _ = strings.Cut(model, ":")
	x := exchange{model: model, stream: strings.HasSuffix(r.URL.Path, ":streamGenerateContent"),
		json: req.GenerationConfig.ResponseMimeType == "application/json"}
	for _, t := range req.Tools {
		x.tools = x.tools || len(t.FunctionDeclarations) > 0
	}
	var ids []string
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if p.FunctionCall != nil {
				ids = append(ids, p.FunctionCall.ID)
			}
			if f := p.FunctionResponse; f != nil {
				ids = append(ids, f.ID)
				x.results = append(x.results, geminiResult(f.ID, f.Response))
			}
		}
	}
	x.turn = nextTurn(ids)
	return x, nil
}

// geminiResult reads a functionResponse's response: {"output": …} for a
// call that ran, {"error": …} for one that did not; anything else is kept
// as its JSON text.
func geminiResult(id string, raw json.RawMessage) Result {
	r := Result{CallID: id, Raw: raw}
	var resp map[string]json.RawMessage
	json.Unmarshal(raw, &resp)
	switch {
	case resp["error"] != nil:
		r.IsError = true
		r.Text = textOrJSON(resp["error"])
	case resp["output"] != nil:
		r.Text = textOrJSON(resp["output"])
	default:
		r.Text = string(raw)
	}
	return r
}

// textOrJSON is a JSON string's value, or the JSON text of anything else.
func textOrJSON(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

func (gemini) other(w http.ResponseWriter, r *http.Request) {
	if strings.HasSuffix(r.URL.Path, ":countTokens") {
		writeJSON(w, map[string]any{"totalTokens": 100})
		return
	}
	writeJSON(w, map[string]any{})
}

func (gemini) write(w http.ResponseWriter, x exchange, k int, t Turn) error {
	cs := calls(k, t)
	if err := noCustom(cs); err != nil {
		return err
	}
	var parts []map[string]any
	if s := text(t); s != "" {
		parts = append(parts, map[string]any{"text": s})
	}
	for _, c := range cs {
		parts = append(parts, map[string]any{"functionCall": map[string]any{"id": c.id, "name": c.name, "args": c.input}})
	}
	resp := map[string]any{
		"candidates": []any{map[string]any{"index": 0, "finishReason": "STOP",
			"content": map[string]any{"role": "model", "parts": parts}}},
		"usageMetadata": map[string]any{"promptTokenCount": 100, "candidatesTokenCount": 20, "totalTokenCount": 120},
		"modelVersion":  x.model,
		"responseId":    fmt.Sprintf("e2e-%d", k+1),
	}
	if !x.stream {
		writeJSON(w, resp)
		return nil
	}
	var s sse
	s.event("", resp)
	s.send(w)
	return nil
}
