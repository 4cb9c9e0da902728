// Package llm is evalcal's LLM judge: an inspector that asks a model to
// inspect a run (issue 8). `openai:MODEL` speaks the Chat Completions API
// of OpenAI and of every OpenAI-compatible server (vLLM, Ollama, LM
// Studio, llama.cpp server, LiteLLM, OpenRouter); `anthropic:MODEL` speaks
// the Anthropic Messages API. Both go through the official Go SDKs with
// their own retries switched off: the runner owns retries, rate limits,
// budgets and the cache.
//
// One Inspect call is: pack the run's files into a prompt within a token
// budget (see Pack), send one request asking for the inspection JSON as
// structured output (OpenAI response_format json_schema strict; Anthropic
// a forced tool whose input_schema is the inspection schema), parse the
// answer with inspection.ParseInspection, and when it is malformed or invalid
// send ONE repair request carrying the error. Two one-time adaptations
// are remembered per Judge: a 400 that names temperature drops the
// temperature, and a 400 that rejects structured output switches to
// extracting the first JSON object from a text answer; each costs one
// extra request the first time only.
//
// Errors are classified for the runner: 429, 5xx, Anthropic 529 and
// timeouts are transient (wrapped with inspection.RetryAfter when the response
// carries Retry-After or retry-after-ms); 401, 403, an unknown model (404,
// model_not_found) and an exhausted quota or credit (OpenAI
// insufficient_quota, Anthropic billing_error or "credit balance") are
// inspection.Fatal; a refusal, an answer still invalid after the repair and
// every other 4xx are inspection.Permanent. Usage of every request that got
// an answer, the repair included, is in the Inspection's Cost.Usage, or
// attached with inspection.WithUsage to the error.
//
// JudgePair (pairwise.go) asks which of two runs did the task better, for
// evalcal run --pairwise: one plain-text request showing both runs, its
// answer read by ParsePairAnswer; a malformed answer is a permanent
// failure, without a repair request. ShuffledFiles (perturb.go) is the
// judge under evalcal run --perturb order.
//
// The API key is never part of Identity, of an error, of an Inspection
// or of anything printed: provider error bodies are summarised by this
// package (the SDK error's text is never used), and every text that could
// echo provider output is passed through a redactor that removes the key.
package llm
