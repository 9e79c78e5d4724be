#!/usr/bin/env python3
"""Stand-in controller ingestion endpoint for the collector system test.

Accepts telemetry-events-v1 batches at /onos/planck/v1/telemetry/events with HTTP basic
auth, appends each batch as one JSON line to OUT, answers as the contract says.
Usage: receiver.py PORTFILE OUT USER PASSWORD  (binds 127.0.0.1 on a free port and
writes the port number to PORTFILE).
"""
import base64
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORTFILE, OUT, USER, PASSWORD = sys.argv[1:5]
EXPECTED = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
PATH = "/onos/planck/v1/telemetry/events"


class Ingest(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, like the real endpoint
    # Headers and body leave in separate writes: without TCP_NODELAY the body would wait for
    # the collector's delayed ACK (~40 ms per batch).
    disable_nagle_algorithm = True

    def reply(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        if self.path != PATH:
            return self.reply(404, {"code": 404, "message": "no such resource"})
        if self.headers.get("Authorization") != EXPECTED:
            return self.reply(401, {"code": 401, "message": "bad credentials"})
        try:
            batch = json.loads(body)
            assert batch["version"] == 1
            assert isinstance(batch["events"], list) and len(batch["events"]) <= 10000
        except Exception as e:  # noqa: BLE001 - any malformed batch is a 400
            return self.reply(400, {"code": 400, "message": f"bad batch: {e}"})
        with open(OUT, "a") as f:
            f.write(json.dumps(batch) + "\n")
        self.reply(200, {"accepted": len(batch["events"]), "unknownDevice": 0, "unknownPort": 0})

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Ingest)
with open(PORTFILE, "w") as f:
    f.write(str(server.server_address[1]))
server.serve_forever()
