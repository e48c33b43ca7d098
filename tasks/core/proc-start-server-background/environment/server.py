"""A tiny status service.

Settings come from the environment:
  APP_PORT  the TCP port to listen on (default 8000)
  APP_MODE  development or production (default development)
"""

import json
import logging
import os
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT = int(os.environ.get("APP_PORT", "8000"))
MODE = os.environ.get("APP_MODE", "development")
log = logging.getLogger("status")


class StatusHandler(BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path != "/status":
            self.send_error(404)
            return
        body = json.dumps({"mode": MODE, "port": PORT, "pid": os.getpid()}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):
        log.info("%s %s", self.address_string(), format % args)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    if MODE not in ("development", "production"):
        raise SystemExit(f"APP_MODE must be development or production, not {MODE!r}")
    server = ThreadingHTTPServer(("0.0.0.0", PORT), StatusHandler)
    log.info("status service listening on port %d in %s mode", PORT, MODE)
    server.serve_forever()
