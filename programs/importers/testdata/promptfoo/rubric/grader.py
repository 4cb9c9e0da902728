#!/usr/bin/python3
"""A stand-in for an OpenAI-compatible grader model (test fixture only).

Answers POST /v1/chat/completions (or /chat/completions) with a JSON verdict
{"reason", "pass", "score"} worked from the text it is asked to grade: pass
with score 0.9 when the output under grading mentions "Paris", fail with
0.2 otherwise, and a reply that is not JSON at all when the output mentions
"report" (a grader failure). Prints its port on stdout, then serves until
killed.
"""
import json
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer


class Grader(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        text = " ".join(m["content"] if isinstance(m["content"], str) else json.dumps(m["content"])
                        for m in body["messages"])
        # promptfoo's rubric prompt quotes the output under grading in <Output> tags.
        out = text.split("<Output>")[-1].split("</Output>")[0] if "<Output>" in text else text
        if "report" in out:
            content = "I would rather not grade this one."
        elif "Paris" in out:
            content = json.dumps({"reason": "It names Paris.", "pass": True, "score": 0.9})
        else:
            content = json.dumps({"reason": "It does not name Paris.", "pass": False, "score": 0.2})
        reply = {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": body.get("model", "grader"),
                 "choices": [{"index": 0, "finish_reason": "stop",
                              "message": {"role": "assistant", "content": content}}],
                 "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


srv = HTTPServer(("127.0.0.1", 0), Grader)
print(srv.server_address[1], flush=True)
srv.serve_forever()
