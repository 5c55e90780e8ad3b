#!/usr/bin/env python3
"""A video stream over HTTP that stalls: YUV4MPEG2 frames at 25 fps (which a player shows as they
come); the first STALL_AFTER requests stop sending after FRAMES frames and keep the connection
open, the later ones send without end. Prints its port, then one line per request."""
import http.server, socketserver, sys, time

frames, stall_after = int(sys.argv[1]), int(sys.argv[2])
W = H = 64
HEADER = b"YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C420jpeg\n" % (W, H)
FRAME = b"FRAME\n" + bytes([128]) * (W * H * 3 // 2)
requests = 0

class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        global requests
        requests += 1
        n = requests
        print("request", n, flush=True)
        self.send_response(200)
        self.send_header("Content-Type", "video/x-yuv4mpeg")
        self.end_headers()
        try:
            self.wfile.write(HEADER)
            sent = 0
            while n > stall_after or sent < frames:
                self.wfile.write(FRAME)
                sent += 1
                time.sleep(0.04)
            while True:  # stalled: the connection stays open, nothing comes
                time.sleep(0.5)
                self.wfile.write(b"")
                if self.rfile.peek(1) == b"":  # the client went away
                    return
        except (BrokenPipeError, ConnectionResetError):
            return

    def log_message(self, *args):
        pass

class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True

with Server(("127.0.0.1", 0), Handler) as server:
    print(server.server_address[1], flush=True)
    server.serve_forever()
