#!/usr/bin/env python3
"""A notification receiver standing in for an OSS/NFVO: answers every GET and POST with
204 and appends each POSTed body, one JSON document per line, to a file.

    receiver.py 127.0.0.1:9999 notifications.jsonl
"""
import http.server
import sys


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(204)
        self.end_headers()

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with open(sys.argv[2], "ab") as f:
            f.write(body.replace(b"\n", b" ") + b"\n")
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


host, port = sys.argv[1].rsplit(":", 1)
http.server.ThreadingHTTPServer((host, int(port)), Handler).serve_forever()
