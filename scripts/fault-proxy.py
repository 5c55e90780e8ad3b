#!/usr/bin/env python3
"""A fault proxy on loopback for Upright's tests and benchmarks, put between the player and an
HTTP server in place of stopping the server.

  fault-proxy.py UPSTREAM_PORT

It prints its own port, then takes one command a line on its standard input and answers "ok":

  pass                       pass every request on
  stall BYTES [PATH]         send BYTES of an answer's body (0: not even its head), then nothing
  trickle BYTES_PER_S [PATH] pass answers on at that rate
  truncate BYTES [PATH]      send an answer's head and BYTES of its body (-1: half), then close
  reset 0 [PATH]             reset the connection (TCP RST), at once or mid-transfer
  status CODE [PATH]         answer CODE with an empty body

PATH: only requests whose path contains it (every request without it). Each request gets a
connection of its own upstream (Connection: close both ways), so that each is judged by the fault
of the moment; a transfer under way follows a new fault too. It ends when its input closes.
"""
import asyncio
import os
import socket
import struct
import sys

UPSTREAM = int(sys.argv[1])
state = {'fault': 'pass', 'arg': 0, 'match': ''}


def fault(path):
    """The fault for a request of `path` now, and its number."""
    return (state['fault'], state['arg']) if state['match'] in path else ('pass', 0)


def reset(writer):
    sock = writer.get_extra_info('socket')
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack('ii', 1, 0))
    except OSError:
        pass
    writer.transport.abort()


def closing(head):
    """An HTTP head with `Connection: close` in place of its own."""
    lines = [line for line in head.split(b'\r\n') if line and not line.lower().startswith(b'connection:')]
    return b'\r\n'.join(lines + [b'Connection: close']) + b'\r\n\r\n'


async def request_head(reader, writer):
    # An idle connection is reset by a reset of every path, as a dying server's would be.
    while True:
        try:
            return await asyncio.wait_for(reader.readuntil(b'\r\n\r\n'), 0.2)
        except asyncio.TimeoutError:
            if state['fault'] == 'reset' and state['match'] == '':
                reset(writer)
                return None


async def relay(path, up_reader, writer, length):
    """The answer's body from upstream to the client, under the fault of each moment."""
    sent = 0
    while True:
        kind, arg = fault(path)
        if kind == 'reset':
            reset(writer)
            return
        if kind == 'stall' and sent >= arg:
            await asyncio.sleep(0.05)
            continue
        size = 65536
        if kind == 'stall':
            size = min(size, arg - sent)
        elif kind == 'trickle':
            size = max(1, arg // 10)
        elif kind == 'truncate':
            limit = arg if arg >= 0 else (length or 2000) // 2
            if sent >= limit:
                break
            size = min(size, limit - sent)
        data = await up_reader.read(size)
        if not data:
            break
        writer.write(data)
        await writer.drain()
        sent += len(data)
        if kind == 'trickle':
            await asyncio.sleep(0.1)
    writer.close()


async def handle(reader, writer):
    try:
        head = await request_head(reader, writer)
        if head is None:
            return
        path = head.split(b' ', 2)[1].decode('latin-1')
        while fault(path) == ('stall', 0):
            await asyncio.sleep(0.05)
        kind, arg = fault(path)
        if kind == 'reset':
            reset(writer)
            return
        if kind == 'status':
            writer.write(b'HTTP/1.1 %d Fault\r\nContent-Length: 0\r\nConnection: close\r\n\r\n' % arg)
            await writer.drain()
            writer.close()
            return
        up_reader, up_writer = await asyncio.open_connection('127.0.0.1', UPSTREAM)
        up_writer.write(closing(head))
        await up_writer.drain()
        answer = await up_reader.readuntil(b'\r\n\r\n')
        length = None
        for line in answer.split(b'\r\n'):
            if line.lower().startswith(b'content-length:'):
                length = int(line.split(b':')[1])
        writer.write(closing(answer))
        await writer.drain()
        await relay(path, up_reader, writer, length)
        up_writer.close()
    except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, IndexError, ValueError):
        try:
            writer.close()
        except OSError:
            pass


async def control():
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while True:
        line = await reader.readline()
        if not line:
            os._exit(0)  # the test is over
        words = line.decode().split()
        state['fault'] = words[0]
        state['arg'] = int(words[1]) if len(words) > 1 else 0
        state['match'] = words[2] if len(words) > 2 else ''
        print('ok', flush=True)


async def main():
    server = await asyncio.start_server(handle, '127.0.0.1', 0, reuse_address=True)
    print(server.sockets[0].getsockname()[1], flush=True)
    await control()


if __name__ == '__main__':
    asyncio.run(main())
