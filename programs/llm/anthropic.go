package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/evalcal/evalcal/inspection"
)

// Anthropic is the provider of the Anthropic Messages API.
const Anthropic = "anthropic"

// DefaultAnthropicBaseURL is Anthropic's API base.
const DefaultAnthropicBaseURL = "https://api.anthropic.com"

func anthropicProvider() provider {
	return provider{name: Anthropic, env: "ANTHROPIC", base: DefaultAnthropicBaseURL,
		check:  checkAnthropic,
		client: func(base, key string, hc *http.Client) completer { return newAnthropicClient(base, key, hc) }}
}

// checkAnthropic refuses a seed (the Messages API takes none) and a
// max_tokens the SDK would not send without streaming.
func checkAnthropic(cfg Config) error {
	if cfg.Seed != nil {
		return errors.New("the Messages API takes no seed")
	}
	if err := checkAnthropicMaxTokens(cfg.Model, cfg.MaxOutputTokens); err != nil {
		return fmt.Errorf("max output tokens %d: %w", cfg.MaxOutputTokens, err)
	}
	return nil
}

// anthropicClient speaks the Messages API through the official SDK,
// without the SDK's environment defaults (ANTHROPIC_* variables, profile
// files): the key and base URL come from the Config only.
type anthropicClient struct {
	svc anthropic.MessageService
	now func() time.Time
}

func newAnthropicClient(base, key string, hc *http.Client) *anthropicClient {
	c := anthropic.NewClient(
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(base+"/"),
		option.WithAPIKey(key),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0), // the runner owns retries
	)
	return &anthropicClient{svc: c.Messages, now: time.Now}
}

// checkAnthropicMaxTokens refuses a max_tokens the SDK would refuse to
// send without streaming (it expects such an answer to take over 10
// minutes), so that the refusal is a configuration error, not a failing
// call.
func checkAnthropicMaxTokens(model string, maxTokens int64) error {
	_, err := anthropic.CalculateNonStreamingTimeout(int(maxTokens), anthropic.Model(model), nil)
	return err
}

func (c *anthropicClient) complete(ctx context.Context, req request) (answer, error) {
	params := anthropic.MessageNewParams{
		Model:     anthropic.Model(req.model),
		MaxTokens: req.maxTokens,
		System:    []anthropic.TextBlockParam{{Text: req.system}},
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(req.user))},
	}
	if req.structured {
		params.Tools = []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{
			Name:        schemaName,
			Description: anthropic.String("Submit the inspection of the run."),
			InputSchema: anthropic.ToolInputSchemaParam{
				Properties:  answerPropertiesJSON,
				Required:    answerRequired,
				ExtraFields: map[string]any{"additionalProperties": false},
			},
		}}}
		params.ToolChoice = anthropic.ToolChoiceUnionParam{OfTool: &anthropic.ToolChoiceToolParam{Name: schemaName}}
	}
	if rp := req.repair; rp != nil {
		prev := rp.previous
		if prev.toolID != "" {
			// A forced tool's answer is corrected through its tool_result.
			var input any = map[string]any{}
			if json.Valid([]byte(prev.text)) && strings.HasPrefix(strings.TrimSpace(prev.text), "{") {
				input = json.RawMessage(prev.text)
			}
			params.Messages = append(params.Messages,
				anthropic.NewAssistantMessage(anthropic.NewToolUseBlock(prev.toolID, input, schemaName)),
				anthropic.NewUserMessage(anthropic.NewToolResultBlock(prev.toolID, repairPrompt(rp.problem), true)))
		} else {
			text := prev.text
			if strings.TrimSpace(text) == "" {
				text = "(empty answer)" // the API rejects an empty assistant turn
			}
			params.Messages = append(params.Messages,
				anthropic.NewAssistantMessage(anthropic.NewTextBlock(text)),
				anthropic.NewUserMessage(anthropic.NewTextBlock(repairPrompt(rp.problem))))
		}
	}
	var opts []option.RequestOption
	if req.temperature != nil {
		// The SDK's MessageNewParams has no temperature field; the API
		// still takes one.
		opts = append(opts, option.WithJSONSet("temperature", *req.temperature))
	}
	var res *http.Response
	opts = append(opts, option.WithResponseInto(&res))
	out, err := c.svc.New(ctx, params, opts...)
	if err != nil {
		return answer{}, responseError(res, err, c.now())
	}
	a := answer{usage: inspection.Usage{Model: req.model, Calls: 1}}
	if out.JSON.Usage.Valid() {
		u := out.Usage
		a.badUsage = checkTokens(namedCount{"input_tokens", u.InputTokens}, namedCount{"cache_read_input_tokens", u.CacheReadInputTokens},
			namedCount{"cache_creation_input_tokens", u.CacheCreationInputTokens}, namedCount{"output_tokens", u.OutputTokens},
			namedCount{"thinking_tokens", u.OutputTokensDetails.ThinkingTokens})
		// input_tokens excludes the cache; inspection.Usage.Input counts all
		// (each part is at most maxReportedTokens: no overflow).
		a.usage.Input = u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens
		a.usage.CachedInput = u.CacheReadInputTokens
		a.usage.Output = u.OutputTokens
		a.usage.Reasoning = u.OutputTokensDetails.ThinkingTokens
	} else {
		a.usage.Missing = true
	}
	a.cutShort = out.StopReason == anthropic.StopReasonMaxTokens
	if out.StopReason == anthropic.StopReasonRefusal {
		a.refused = true
	}
	var texts []string
	for _, b := range out.Content {
		switch b.Type {
		case "tool_use":
			if a.toolID == "" && b.Name == schemaName {
				a.toolID, a.text = b.ID, string(b.Input)
			}
		case "text":
			texts = append(texts, b.Text)
		}
	}
	if a.toolID == "" {
		a.text = strings.Join(texts, "\n")
	}
	if a.refused {
		a.refusal = strings.Join(texts, "\n")
	}
	return a, nil
}
