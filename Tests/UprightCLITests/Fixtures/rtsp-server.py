#!/usr/bin/python3
"""An RTSP server (GStreamer's RTSP server library) on loopback: a live picture of one colour
(MJPEG over RTP, 320x240, 25 fps) at rtsp://127.0.0.1:PORT/stream. Prints the port once it
listens, then runs until killed.

  rtsp-server.py PORT COLOUR      (PORT 0: any free one; COLOUR as 0xAARRGGBB)
"""
import socket, sys
import gi
gi.require_version("Gst", "1.0")
gi.require_version("GstRtspServer", "1.0")
from gi.repository import GLib, Gst, GstRtspServer

port, colour = int(sys.argv[1]), sys.argv[2]
if port == 0:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
Gst.init(None)
server = GstRtspServer.RTSPServer()
server.set_address("127.0.0.1")
server.set_service(str(port))
factory = GstRtspServer.RTSPMediaFactory()
factory.set_launch(
    "( videotestsrc is-live=true pattern=solid-color foreground-color=%s "
    "! video/x-raw,format=I420,width=320,height=240,framerate=25/1 ! jpegenc quality=90 ! rtpjpegpay name=pay0 pt=26 )" % colour)
factory.set_shared(True)
server.get_mount_points().add_factory("/stream", factory)
if server.attach(None) == 0:
    sys.exit("rtsp-server: cannot listen on port %d" % port)
print(port, flush=True)
GLib.MainLoop().run()
