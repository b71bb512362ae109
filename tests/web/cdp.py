"""A small Chrome DevTools Protocol client on Python's standard library alone: starts a
headless Chromium, serves a folder on a loopback port, and sends CDP commands over a
WebSocket (RFC 6455, client side: masked text frames). Used by tests/web/test-page.py and
bench/web-page.py.
"""
import base64
import functools
import http.server
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import tempfile
import threading
import time
import urllib.parse
import urllib.request

BROWSERS = ('chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable')


def find_browser():
    """The Chromium to drive: $CHROMIUM, else the first of BROWSERS on PATH, else None."""
    env = os.environ.get('CHROMIUM')
    if env:
        return shutil.which(env)
    for b in BROWSERS:
        p = shutil.which(b)
        if p:
            return p
    return None


class _Quiet(http.server.SimpleHTTPRequestHandler):
    extensions_map = dict(http.server.SimpleHTTPRequestHandler.extensions_map,
                          **{'.wasm': 'application/wasm', '.js': 'text/javascript'})

    def log_message(self, fmt, *args):
        pass


class Server:
    """A folder served on 127.0.0.1 (an ephemeral port) from a thread."""

    def __init__(self, folder):
        handler = functools.partial(_Quiet, directory=folder)
        self.httpd = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path=''):
        return 'http://127.0.0.1:%d/%s' % (self.port, path)

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


class WebSocket:
    def __init__(self, url, timeout=30):
        u = urllib.parse.urlparse(url)
        self.sock = socket.create_connection((u.hostname, u.port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        req = ('GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n'
               'Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n'
               % (u.path, u.hostname, u.port, key))
        self.sock.sendall(req.encode())
        head = b''
        while b'\r\n\r\n' not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError('websocket handshake: connection closed')
            head += chunk
        head, self.buf = head.split(b'\r\n\r\n', 1)
        if b' 101 ' not in head.split(b'\r\n', 1)[0]:
            raise ConnectionError('websocket handshake refused: %r' % head[:200])

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(max(65536, n - len(self.buf)))
            if not chunk:
                raise ConnectionError('websocket closed')
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def send(self, text):
        data = text.encode()
        head = bytes([0x81])
        n = len(data)
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 65536:
            head += bytes([0x80 | 126]) + struct.pack('>H', n)
        else:
            head += bytes([0x80 | 127]) + struct.pack('>Q', n)
        mask = os.urandom(4)
        body = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        self.sock.sendall(head + mask + body)

    def recv(self):
        parts = []
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7f
            if n == 126:
                n = struct.unpack('>H', self._read(2))[0]
            elif n == 127:
                n = struct.unpack('>Q', self._read(8))[0]
            if b1 & 0x80:
                mask = self._read(4)
                data = bytes(b ^ mask[i % 4] for i, b in enumerate(self._read(n)))
            else:
                data = self._read(n)
            op = b0 & 0x0f
            if op == 0x8:
                raise ConnectionError('websocket closed by the browser')
            if op == 0x9:  # ping: answer, keep reading
                continue
            parts.append(data)
            if b0 & 0x80:
                return b''.join(parts).decode()

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


class Browser:
    """Headless Chromium with one page target driven over CDP."""

    def __init__(self, path=None, timeout=30):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix='vramplan-chromium-')
        args = [path or find_browser(), '--headless', '--no-sandbox', '--disable-gpu',
                '--disable-dev-shm-usage', '--no-first-run', '--no-default-browser-check',
                '--disable-extensions', '--disable-background-networking',
                '--remote-debugging-port=0', '--remote-debugging-address=127.0.0.1',
                '--user-data-dir=' + self.profile, 'about:blank']
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        port = None
        deadline = time.monotonic() + timeout
        log = []
        while port is None and time.monotonic() < deadline:
            line = self.proc.stderr.readline().decode(errors='replace')
            if not line:
                break
            log.append(line)
            m = re.search(r'DevTools listening on ws://127\.0\.0\.1:(\d+)/', line)
            if m:
                port = int(m.group(1))
        if port is None:
            self.close()
            raise RuntimeError('chromium did not start:\n' + ''.join(log[-20:]))
        threading.Thread(target=self._drain, daemon=True).start()
        with urllib.request.urlopen('http://127.0.0.1:%d/json/list' % port, timeout=timeout) as r:
            targets = json.load(r)
        page = next(t for t in targets if t.get('type') == 'page')
        self.ws = WebSocket(page['webSocketDebuggerUrl'], timeout)
        self.next_id = 0
        self.send('Page.enable')
        self.send('Runtime.enable')

    def _drain(self):
        for _ in iter(self.proc.stderr.readline, b''):
            pass

    def send(self, method, **params):
        self.next_id += 1
        mid = self.next_id
        self.ws.send(json.dumps({'id': mid, 'method': method, 'params': params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get('id') == mid:
                if 'error' in msg:
                    raise RuntimeError('%s: %s' % (method, msg['error']))
                return msg.get('result', {})

    def eval(self, expr, await_promise=False):
        r = self.send('Runtime.evaluate', expression=expr, returnByValue=True,
                      awaitPromise=await_promise)
        if 'exceptionDetails' in r:
            raise RuntimeError('page: %s: %s' % (expr[:80], r['exceptionDetails']))
        return r['result'].get('value')

    def wait(self, expr, timeout=None):
        deadline = time.monotonic() + (timeout or self.timeout)
        guarded = '(() => { try { return (%s); } catch (e) { return false; } })()' % expr
        while time.monotonic() < deadline:
            v = self.eval(guarded)
            if v:
                return v
            time.sleep(0.01)
        raise TimeoutError('page: still false after %ss: %s' % (timeout or self.timeout, expr))

    def navigate(self, url):
        self.send('Page.navigate', url=url)

    def set_files(self, selector, paths):
        doc = self.send('DOM.getDocument')
        node = self.send('DOM.querySelector', nodeId=doc['root']['nodeId'], selector=selector)
        self.send('DOM.setFileInputFiles', nodeId=node['nodeId'],
                  files=[os.path.abspath(p) for p in paths])

    def close(self):
        if getattr(self, 'ws', None):
            self.ws.close()
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)
