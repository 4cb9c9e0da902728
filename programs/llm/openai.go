package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/evalcal/evalcal/inspection"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"
)

// request is one provider request, provider-neutral.
type request struct {
	model  string
	system string
	user   string
	// repair, when set, is the turn asking to correct a bad answer.
	repair      *repairTurn
	temperature *float64
	seed        *int64
	maxTokens   int64
	// structured asks for structured output (response_format json_schema
	// or a forced tool); false asks for a JSON object in plain text.
	structured bool
	// plain keeps structured off whatever the judge learnt (a pairwise
	// request: its answer is not an inspection).
	plain bool
}

// repairTurn is the earlier answer and what was wrong with it.
type repairTurn struct {
	previous answer
	problem  string
}

// answer is one provider answer.
type answer struct {
	// text is the answer's JSON text: the message content, or the forced
	// tool's input.
	text string
	// toolID is the Anthropic tool_use block's id ("" for a text answer).
	toolID string
	// refusal is the model's refusal, if it refused.
	refused bool
	refusal string
	// cutShort: the answer stopped at the max output tokens.
	cutShort bool
	usage    inspection.Usage
	// badUsage, when not empty, says which reported token count is
	// impossible (see checkTokens); usage is then not to be believed.
	badUsage string
}

// maxReportedTokens bounds a token count one request can report: far
// above any model's context (MaxPromptTokens is 4M), far below int64
// overflow even summed over a million calls.
const maxReportedTokens = 1_000_000_000

// checkTokens returns "" when every count is in 0..maxReportedTokens,
// else the first that is not, as "name=value".
func checkTokens(counts ...namedCount) string {
	for _, c := range counts {
		if c.n < 0 || c.n > maxReportedTokens {
			return fmt.Sprintf("%s=%d, want 0..%d", c.name, c.n, maxReportedTokens)
		}
	}
	return ""
}

type namedCount struct {
	name string
	n    int64
}

// completer sends one request. An HTTP error answer is a
// *providerError; anything else is a transport or body error.
type completer interface {
	complete(ctx context.Context, req request) (answer, error)
}

// OpenAI is the provider of Chat Completions, of OpenAI and of every
// OpenAI-compatible server (vLLM, Ollama, LM Studio, llama.cpp).
const OpenAI = "openai"

// DefaultOpenAIBaseURL is OpenAI's API base.
const DefaultOpenAIBaseURL = "https://api.openai.com/v1"

func openAIProvider() provider {
	return provider{name: OpenAI, env: "OPENAI", base: DefaultOpenAIBaseURL,
		client: func(base, key string, hc *http.Client) completer { return newOpenAIClient(base, key, hc) }}
}

// schemaName names the structured output (response format or tool).
const schemaName = "submit_inspection"

// openAIClient speaks Chat Completions through the official SDK. The
// service is built from explicit options only: openai.NewClient would
// read OPENAI_* variables (organization, project, custom headers) that
// this package must not.
type openAIClient struct {
	svc openai.ChatCompletionService
	now func() time.Time
}

func newOpenAIClient(base, key string, hc *http.Client) *openAIClient {
	return &openAIClient{
		svc: openai.NewChatCompletionService(
			option.WithBaseURL(base+"/"),
			option.WithAPIKey(key),
			option.WithHTTPClient(hc),
			option.WithMaxRetries(0), // the runner owns retries
		),
		now: time.Now,
	}
}

func (c *openAIClient) complete(ctx context.Context, req request) (answer, error) {
	params := openai.ChatCompletionNewParams{
		Model: shared.ChatModel(req.model),
		Messages: []openai.ChatCompletionMessageParamUnion{
			openai.SystemMessage(req.system),
			openai.UserMessage(req.user),
		},
		MaxCompletionTokens: param.NewOpt(req.maxTokens),
	}
	if req.repair != nil {
		params.Messages = append(params.Messages,
			openai.ChatCompletionMessageParamUnion{OfAssistant: &openai.ChatCompletionAssistantMessageParam{
				Content: openai.ChatCompletionAssistantMessageParamContentUnion{OfString: param.NewOpt(req.repair.previous.text)},
			}},
			openai.UserMessage(repairPrompt(req.repair.problem)))
	}
	if req.temperature != nil {
		params.Temperature = param.NewOpt(*req.temperature)
	}
	if req.seed != nil {
		params.Seed = param.NewOpt(*req.seed)
	}
	if req.structured {
		params.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{
			OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
				JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{
					Name:   schemaName,
					Strict: param.NewOpt(true),
					Schema: answerSchemaJSON,
				},
			},
		}
	}
	var res *http.Response
	out, err := c.svc.New(ctx, params, option.WithResponseInto(&res))
	if err != nil {
		return answer{}, responseError(res, err, c.now())
	}
	a := answer{usage: inspection.Usage{Model: req.model, Calls: 1}}
	if out.JSON.Usage.Valid() {
		u := out.Usage
		a.badUsage = checkTokens(namedCount{"prompt_tokens", u.PromptTokens}, namedCount{"completion_tokens", u.CompletionTokens},
			namedCount{"cached_tokens", u.PromptTokensDetails.CachedTokens}, namedCount{"reasoning_tokens", u.CompletionTokensDetails.ReasoningTokens})
		a.usage.Input = u.PromptTokens
		a.usage.Output = u.CompletionTokens
		a.usage.CachedInput = u.PromptTokensDetails.CachedTokens
		a.usage.Reasoning = u.CompletionTokensDetails.ReasoningTokens
	} else {
		a.usage.Missing = true
	}
	if len(out.Choices) == 0 {
		return a, nil // an empty answer: malformed, repaired by the caller
	}
	ch := out.Choices[0]
	a.text = ch.Message.Content
	a.cutShort = ch.FinishReason == "length"
	if ch.Message.Refusal != "" {
		a.refused, a.refusal = true, ch.Message.Refusal
	}
	return a, nil
}

// responseError turns an SDK error into a *providerError when the
// server answered with an error status, a *bodyError when a 2xx body
// could not be read, and keeps transport errors (which the SDK returns
// unwrapped) as they are.
func responseError(res *http.Response, err error, now time.Time) error {
	var re *redirectError
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.As(err, &re) {
		return err // a refused redirect comes with the 3xx response
	}
	if res != nil && res.StatusCode >= 400 {
		return newProviderError(res, now)
	}
	if res != nil {
		if errors.Is(err, errBodyTooLarge) {
			return &bodyError{msg: "answer body too large: " + errBodyTooLarge.Error()}
		}
		return &bodyError{msg: "answer body is not the API's JSON"}
	}
	return err
}
