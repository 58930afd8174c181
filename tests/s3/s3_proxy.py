#!/usr/bin/env python3
"""Loopback HTTP proxy in front of s3rver for the object-storage tests (issue 19).

s3rver 3.7.1 stores and serves every byte; this proxy, written for paimon-c's tests with
the standard library only, sits in front of it and
  * verifies AWS Signature V4 (header and presigned-query forms) against the known
    credentials (default S3RVER/S3RVER): s3rver 3.7.1 accepts any V4 signature (its
    authentication middleware checks V2 only), so without this a wrong secret would pass.
    A bad signature answers 403 SignatureDoesNotMatch with the StringToSign and
    CanonicalRequest in the body, as AWS S3 does; an unknown key 403 InvalidAccessKeyId;
    an x-amz-content-sha256 that does not match the body 400 XAmzContentSHA256Mismatch.
    Anonymous requests are refused with AccessDenied unless allowed (control `auth`);
  * implements conditional PUT: `If-None-Match: *` on an existing key answers 412
    PreconditionFailed without forwarding; check and put are atomic per key inside the
    proxy (a lock per bucket/key held across the HEAD and the forwarded PUT);
  * serves ranged GETs correctly: a suffix range `bytes=-N` is translated into an explicit
    range with a HEAD (s3rver reads it as 0..N), `bytes=0-0` is honoured (s3rver returns
    the whole object), and the 206 answer carries a Content-Range the proxy computed;
  * tracks multipart uploads (initiate, part, complete, abort) and implements
    ListMultipartUploads (GET /bucket?uploads) and AbortMultipartUpload
    (DELETE /bucket/key?uploadId=X) itself, which s3rver lacks; a part or complete for an
    aborted upload answers 404 NoSuchUpload;
  * counts requests and bytes per object, per method and per operation, keeps a request
    log, and injects faults on command.
Everything else is forwarded byte-exactly with the client's headers, Host and
Authorization included (the signature is over Host, so the Host s3rver sees is the one the
client signed). When s3rver does not answer (stopped for a fault test) the proxy closes
the client's connection without a response, as a dead server would.

Control API: special paths on the proxy's own port (no S3 bucket can be named `__proxy`).
Every command answers JSON (`count` answers one text line). Query parameters:
  GET /__proxy/ping                      -> {"ok": true, "upstream": "127.0.0.1:P"}
  GET /__proxy/stats                     -> {"total": {...}, "methods": {M: n},
                                             "ops": {Op: n}, "objects": {"b/k": {...}}}
      per object and in total: requests, bytes_in (request bodies), bytes_out (response
      bodies), and a count per method
  GET /__proxy/log[?since=SEQ]           -> {"log": [{seq, method, op, object, query,
                                             range, status, bytes_in, bytes_out, fault}]}
  GET /__proxy/count?[method=M][&op=O][&key=REGEX][&status=S]
                                         -> "REQUESTS BYTES_IN BYTES_OUT" over the log
  GET /__proxy/reset                     -> clears counters, log and faults (not uploads)
  GET /__proxy/fault?kind=K[&count=N][&method=M][&op=O][&key=REGEX][&ms=D]
      adds a rule; the next N (default 1, -1 = always) requests that match (method exact,
      op exact, key a regex searched in "bucket/key") get kind K:
        drop        close the connection before forwarding (the store never sees it)
        drop_after  forward, then close the connection instead of answering
        truncate    forward, send the headers and half the body, then close
        503         answer 503 SlowDown without forwarding
        500         answer 500 InternalError without forwarding
        delay       wait ms milliseconds (default 1000), then go on normally
  GET /__proxy/clear                     -> removes every fault rule
  GET /__proxy/faults                    -> the rules left and how many fired
  GET /__proxy/overwrite?on=1|0          -> "silently overwrite" mode: If-None-Match is
                                            ignored, the PUT always overwrites
  GET /__proxy/auth?anonymous=allow|deny[&verify=on|off]
  GET /__proxy/uploads                   -> tracked pending multipart uploads
Operations (op): ListBuckets CreateBucket DeleteBucket HeadBucket ListObjects
ListObjectsV2 ListMultipartUploads DeleteObjects GetObject HeadObject PutObject
CopyObject DeleteObject CreateMultipartUpload UploadPart CompleteMultipartUpload
AbortMultipartUpload Other.

Usage: s3_proxy.py --upstream 127.0.0.1:PORT [--listen 127.0.0.1] [--port 0]
                   [--port-file FILE] [--credentials KEY:SECRET,...]
"""

import argparse
import datetime
import hashlib
import hmac
import http.client
import http.server
import json
import re
import socket
import sys
import threading
import time
import urllib.parse
import uuid
import xml.sax.saxutils

LOG_CAP = 200000


def xml_escape(s):
    return xml.sax.saxutils.escape(str(s))


def s3_error_body(code, message, extra=None):
    parts = ['<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>', code,
             '</Code><Message>', xml_escape(message), '</Message>']
    for k, v in (extra or {}).items():
        parts += ['<', k, '>', xml_escape(v), '</', k, '>']
    parts += ['<RequestId>', uuid.uuid4().hex[:16].upper(), '</RequestId></Error>']
    return ''.join(parts).encode()


def uri_encode(s, safe='-_.~'):
    return urllib.parse.quote(s, safe=safe)


def parse_query(raw):
    """Raw query string -> list of (name, value) decoded, in order; '' value if absent."""
    out = []
    if not raw:
        return out
    for item in raw.split('&'):
        if item == '':
            continue
        if '=' in item:
            k, v = item.split('=', 1)
        else:
            k, v = item, ''
        out.append((urllib.parse.unquote(k), urllib.parse.unquote(v)))
    return out


def hmac_sha256(key, msg):
    return hmac.new(key, msg.encode(), hashlib.sha256).digest()


def signing_key(secret, date, region, service):
    k = hmac_sha256(('AWS4' + secret).encode(), date)
    k = hmac_sha256(k, region)
    k = hmac_sha256(k, service)
    return hmac_sha256(k, 'aws4_request')


class State:
    def __init__(self, upstream, credentials):
        self.upstream = upstream
        self.credentials = credentials
        self.lock = threading.Lock()
        self.key_locks = {}
        self.overwrite = False
        self.allow_anonymous = False
        self.verify = True
        self.faults = []
        self.uploads = {}  # upload id -> {bucket, key, initiated}
        self.aborted = set()
        self.reset_counters()

    def reset_counters(self):
        self.seq = 0
        self.log = []
        self.total = {'requests': 0, 'bytes_in': 0, 'bytes_out': 0}
        self.methods = {}
        self.ops = {}
        self.objects = {}

    def key_lock(self, obj):
        with self.lock:
            lk = self.key_locks.get(obj)
            if lk is None:
                lk = self.key_locks[obj] = threading.Lock()
            return lk

    def take_fault(self, method, op, obj):
        with self.lock:
            for rule in self.faults:
                if rule['count'] == 0:
                    continue
                if rule['method'] and rule['method'] != method:
                    continue
                if rule['op'] and rule['op'] != op:
                    continue
                if rule['key'] and not re.search(rule['key'], obj):
                    continue
                if rule['count'] > 0:
                    rule['count'] -= 1
                rule['fired'] += 1
                return rule
        return None

    def record(self, entry):
        with self.lock:
            self.seq += 1
            entry['seq'] = self.seq
            if len(self.log) < LOG_CAP:
                self.log.append(entry)
            m, op, obj = entry['method'], entry['op'], entry['object']
            self.total['requests'] += 1
            self.total['bytes_in'] += entry['bytes_in']
            self.total['bytes_out'] += entry['bytes_out']
            self.methods[m] = self.methods.get(m, 0) + 1
            self.ops[op] = self.ops.get(op, 0) + 1
            if obj:
                o = self.objects.setdefault(obj, {'requests': 0, 'bytes_in': 0,
                                                  'bytes_out': 0})
                o['requests'] += 1
                o['bytes_in'] += entry['bytes_in']
                o['bytes_out'] += entry['bytes_out']
                o[m] = o.get(m, 0) + 1


def classify(method, bucket, key, q):
    if not bucket:
        return 'ListBuckets' if method == 'GET' else 'Other'
    if not key:
        if method == 'PUT' and not q:
            return 'CreateBucket'
        if method == 'DELETE' and not q:
            return 'DeleteBucket'
        if method == 'HEAD':
            return 'HeadBucket'
        if method == 'GET' and 'uploads' in q:
            return 'ListMultipartUploads'
        if method == 'GET' and q.get('list-type') == '2':
            return 'ListObjectsV2'
        if method == 'GET':
            return 'ListObjects'
        if method == 'POST' and 'delete' in q:
            return 'DeleteObjects'
        return 'Other'
    if method == 'GET':
        return 'GetObject'
    if method == 'HEAD':
        return 'HeadObject'
    if method == 'PUT':
        if 'uploadId' in q:
            return 'UploadPart'
        return 'PutObject'
    if method == 'POST' and 'uploads' in q:
        return 'CreateMultipartUpload'
    if method == 'POST' and 'uploadId' in q:
        return 'CompleteMultipartUpload'
    if method == 'DELETE' and 'uploadId' in q:
        return 'AbortMultipartUpload'
    if method == 'DELETE':
        return 'DeleteObject'
    return 'Other'


class Dropped(Exception):
    pass


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    server_version = 'paimon-s3-proxy'
    state = None  # set by main

    def log_message(self, fmt, *args):  # quiet: the request log is the record
        pass

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = lambda self: self.handle_any()

    # ---- plumbing -----------------------------------------------------------------
    def read_body(self):
        te = self.headers.get('Transfer-Encoding', '')
        if 'chunked' in te.lower():
            chunks = []
            while True:
                line = self.rfile.readline(65537)
                size = int(line.split(b';', 1)[0].strip() or b'0', 16)
                if size == 0:
                    while self.rfile.readline(65537) not in (b'\r\n', b'\n', b''):
                        pass
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline(65537)
            return b''.join(chunks), True
        n = int(self.headers.get('Content-Length') or 0)
        return (self.rfile.read(n) if n > 0 else b''), False

    def drop(self):
        self.close_connection = True
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                       b'\x01\x00\x00\x00\x00\x00\x00\x00')
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        raise Dropped()

    def send_plain(self, status, body, ctype='application/xml', headers=None):
        self.send_response(status)
        self.send_header('Content-Type', ctype)
        self.send_header('Content-Length', str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != 'HEAD':
            self.wfile.write(body)
        self.out_status = status
        self.out_bytes = len(body) if self.command != 'HEAD' else 0

    def send_error_xml(self, status, code, message, extra=None):
        self.send_plain(status, s3_error_body(code, message, extra))

    def upstream_conn(self):
        host, port = self.state.upstream.rsplit(':', 1)
        return http.client.HTTPConnection(host, int(port), timeout=120)

    def upstream(self, method, target, headers, body, chunked):
        """Sends one request upstream with exactly these headers; returns (conn, resp)
        or drops the client connection when s3rver is unreachable."""
        conn = self.upstream_conn()
        try:
            conn.putrequest(method, target, skip_host=True, skip_accept_encoding=True)
            for k, v in headers:
                conn.putheader(k, v)
            conn.endheaders()
            if chunked:
                if body:
                    conn.send(b'%x\r\n' % len(body) + body + b'\r\n')
                conn.send(b'0\r\n\r\n')
            elif body:
                conn.send(body)
            resp = conn.getresponse()
        except OSError:
            conn.close()
            self.drop()
        return conn, resp

    def relay(self, conn, resp, fault=None, limit=None, status=None, extra=None):
        """Sends an upstream answer to the client; limit caps the body (ranges)."""
        try:
            body = resp.read() if limit is None else resp.read(limit)
        except (OSError, http.client.HTTPException):
            conn.close()
            self.drop()
        conn.close()
        if fault == 'drop_after':
            self.drop()
        self.send_response(status or resp.status, resp.reason if status is None else None)
        for k, v in resp.getheaders():
            lk = k.lower()
            if lk in ('connection', 'keep-alive', 'transfer-encoding', 'content-length',
                      'date', 'server'):
                continue
            if extra and lk in (x.lower() for x in extra):
                continue
            self.send_header(k, v)
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        if self.command == 'HEAD':
            cl = resp.getheader('Content-Length')
            if cl is not None:
                self.send_header('Content-Length', cl)
            self.end_headers()
            self.out_bytes = 0
        else:
            self.send_header('Content-Length', str(len(body)))
            self.end_headers()
            if fault == 'truncate':
                self.wfile.write(body[:len(body) // 2])
                self.wfile.flush()
                self.out_bytes = len(body) // 2
                self.drop()
            self.wfile.write(body)
            self.out_bytes = len(body)
        self.out_status = status or resp.status
        return body

    # ---- signature V4 verification ---------------------------------------------
    def verify_signature(self, body):
        """None when the request may go on, else (status, code, message, extra)."""
        st = self.state
        auth = self.headers.get('Authorization')
        qpairs = parse_query(self.raw_query)
        qdict = dict(qpairs)
        if auth is None and 'X-Amz-Algorithm' not in qdict:
            if 'Signature' in qdict or st.allow_anonymous:
                return None  # V2 presigned: s3rver checks it
            return (403, 'AccessDenied', 'Anonymous access is refused by the test proxy',
                    None)
        if auth is not None and not auth.startswith('AWS4-HMAC-SHA256'):
            return None  # V2 header signature: s3rver checks it itself
        if not st.verify:
            return None
        if auth is not None:
            fields = {}
            for part in auth[len('AWS4-HMAC-SHA256'):].split(','):
                if '=' in part:
                    k, v = part.strip().split('=', 1)
                    fields[k] = v
            cred = fields.get('Credential', '')
            signed = fields.get('SignedHeaders', '')
            given = fields.get('Signature', '')
            amzdate = self.headers.get('x-amz-date') or ''
            payload = self.headers.get('x-amz-content-sha256')
            if payload is None:
                return (400, 'InvalidRequest',
                        'Missing required header for this request: x-amz-content-sha256',
                        None)
            query = [(k, v) for k, v in qpairs]
        else:
            cred = qdict.get('X-Amz-Credential', '')
            signed = qdict.get('X-Amz-SignedHeaders', '')
            given = qdict.get('X-Amz-Signature', '')
            amzdate = qdict.get('X-Amz-Date', '')
            payload = 'UNSIGNED-PAYLOAD'
            query = [(k, v) for k, v in qpairs if k != 'X-Amz-Signature']
        scope_parts = cred.split('/')
        if len(scope_parts) != 5 or not signed or not given or not amzdate:
            return (400, 'AuthorizationHeaderMalformed',
                    'The authorization header is malformed', None)
        access_key = scope_parts[0]
        secret = st.credentials.get(access_key)
        if secret is None:
            return (403, 'InvalidAccessKeyId',
                    'The AWS Access Key Id you provided does not exist in our records.',
                    {'AWSAccessKeyId': access_key})
        try:
            t = datetime.datetime.strptime(amzdate, '%Y%m%dT%H%M%SZ').replace(
                tzinfo=datetime.timezone.utc)
        except ValueError:
            return (403, 'AccessDenied', 'AWS authentication requires a valid x-amz-date',
                    None)
        if abs((datetime.datetime.now(datetime.timezone.utc) - t).total_seconds()) > 900:
            return (403, 'RequestTimeTooSkewed',
                    'The difference between the request time and the current time is too '
                    'large.', {'RequestTime': amzdate})
        names = signed.split(';')
        canon_headers = ''
        for name in names:
            vals = self.headers.get_all(name) or []
            v = ','.join(re.sub(r'\s+', ' ', x.strip()) for x in vals)
            canon_headers += name + ':' + v + '\n'
        path = urllib.parse.unquote(self.raw_path)
        canon_uri = uri_encode(path, safe='/-_.~')
        canon_query = '&'.join(
            uri_encode(k) + '=' + uri_encode(v) for k, v in sorted(query))
        canonical = '\n'.join([self.command, canon_uri, canon_query, canon_headers,
                               signed, payload])
        scope = '/'.join(scope_parts[1:])
        to_sign = '\n'.join(['AWS4-HMAC-SHA256', amzdate, scope,
                             hashlib.sha256(canonical.encode()).hexdigest()])
        key = signing_key(secret, scope_parts[1], scope_parts[2], scope_parts[3])
        want = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
        if not hmac.compare_digest(want, given):
            return (403, 'SignatureDoesNotMatch',
                    'The request signature we calculated does not match the signature '
                    'you provided. Check your key and signing method.',
                    {'AWSAccessKeyId': access_key, 'StringToSign': to_sign,
                     'SignatureProvided': given, 'CanonicalRequest': canonical})
        if re.fullmatch(r'[0-9a-fA-F]{64}', payload) and \
                hashlib.sha256(body).hexdigest() != payload.lower():
            return (400, 'XAmzContentSHA256Mismatch',
                    "The provided 'x-amz-content-sha256' header does not match what was "
                    'computed.', {'ClientComputedContentSHA256': payload,
                                  'S3ComputedContentSHA256':
                                      hashlib.sha256(body).hexdigest()})
        return None

    # ---- the request ------------------------------------------------------------
    def handle_any(self):
        self.out_status = 0
        self.out_bytes = 0
        self.raw_path, _, self.raw_query = self.path.partition('?')
        if self.raw_path.startswith('/__proxy/') or self.raw_path == '/__proxy':
            return self.control()
        st = self.state
        t0 = time.time()
        entry = None
        try:
            body, chunked = self.read_body()
            path = urllib.parse.unquote(self.raw_path)
            parts = path.lstrip('/').split('/', 1)
            bucket = parts[0]
            key = parts[1] if len(parts) > 1 else ''
            q = dict(parse_query(self.raw_query))
            op = classify(self.command, bucket, key, q)
            obj = bucket + '/' + key if key else bucket
            entry = {'method': self.command, 'op': op, 'object': obj,
                     'query': self.raw_query, 'range': self.headers.get('Range'),
                     'status': 0, 'bytes_in': len(body), 'bytes_out': 0, 'fault': None}
            rule = st.take_fault(self.command, op, obj)
            kind = rule['kind'] if rule else None
            entry['fault'] = kind
            if kind == 'delay':
                time.sleep(rule['ms'] / 1000.0)
                kind = None
            if kind == 'drop':
                self.drop()
            if kind in ('503', '500'):
                if kind == '503':
                    self.send_error_xml(503, 'SlowDown', 'Please reduce your request rate.')
                else:
                    self.send_error_xml(500, 'InternalError',
                                        'We encountered an internal error. Please try '
                                        'again.')
                return
            bad = self.verify_signature(body)
            if bad:
                self.send_error_xml(bad[0], bad[1], bad[2], bad[3])
                return
            self.route(op, bucket, key, q, body, chunked, kind)
        except Dropped:
            if entry is not None:
                entry['status'] = 'dropped'
        finally:
            if entry is not None:
                if entry['status'] != 'dropped':
                    entry['status'] = self.out_status
                entry['bytes_out'] = self.out_bytes
                entry['ms'] = int((time.time() - t0) * 1000)
                st.record(entry)

    def client_headers(self):
        return list(self.headers.items())

    def forward(self, body, chunked, fault):
        conn, resp = self.upstream(self.command, self.path, self.client_headers(), body,
                                   chunked)
        return resp.status, self.relay(conn, resp, fault)

    def route(self, op, bucket, key, q, body, chunked, fault):
        st = self.state
        if op == 'ListMultipartUploads':
            return self.list_uploads(bucket, q)
        if op == 'AbortMultipartUpload':
            return self.abort_upload(bucket, key, q)
        if op in ('UploadPart', 'CompleteMultipartUpload'):
            with st.lock:
                gone = q.get('uploadId') in st.aborted
            if gone:
                return self.send_error_xml(
                    404, 'NoSuchUpload', 'The specified upload does not exist. The upload '
                    'ID may be invalid, or the upload may have been aborted or completed.',
                    {'UploadId': q.get('uploadId')})
        if op == 'PutObject' and self.headers.get('If-None-Match', '').strip() == '*' \
                and not st.overwrite:
            with st.key_lock(bucket + '/' + key):
                conn, resp = self.upstream('HEAD', self.raw_path,
                                           [('Host', self.headers.get('Host', ''))],
                                           b'', False)
                resp.read()
                conn.close()
                if resp.status == 200:
                    return self.send_error_xml(
                        412, 'PreconditionFailed',
                        'At least one of the pre-conditions you specified did not hold',
                        {'Condition': 'If-None-Match'})
                return self.forward(body, chunked, fault)
        if op == 'GetObject' and self.headers.get('Range'):
            return self.ranged_get(fault)
        if op == 'CreateMultipartUpload':
            status, rbody = self.forward(body, chunked, fault)
            m = re.search(rb'<UploadId>([^<]+)</UploadId>', rbody or b'')
            if status == 200 and m:
                with st.lock:
                    st.uploads[m.group(1).decode()] = {
                        'bucket': bucket, 'key': key,
                        'initiated': time.strftime('%Y-%m-%dT%H:%M:%S.000Z',
                                                   time.gmtime())}
            return None
        if op == 'CompleteMultipartUpload':
            status, rbody = self.forward(body, chunked, fault)
            if status == 200 and b'<Error>' not in (rbody or b''):
                with st.lock:
                    st.uploads.pop(q.get('uploadId'), None)
            return None
        self.forward(body, chunked, fault)
        return None

    def ranged_get(self, fault):
        rng = self.headers.get('Range').strip()
        m = re.fullmatch(r'bytes=(\d*)-(\d*)', rng)
        if not m or (m.group(1) == '' and m.group(2) == ''):
            return self.forward(b'', False, fault)  # let s3rver answer what it does
        host = [('Host', self.headers.get('Host', ''))]
        conn, resp = self.upstream('HEAD', self.raw_path, host, b'', False)
        resp.read()
        conn.close()
        if resp.status != 200:
            return self.forward(b'', False, fault)  # NoSuchKey etc. from s3rver
        size = int(resp.getheader('Content-Length') or 0)
        if m.group(1) == '':
            n = int(m.group(2))
            start, end = max(0, size - n), size - 1
            ok = n > 0 and size > 0
        else:
            start = int(m.group(1))
            end = min(int(m.group(2)), size - 1) if m.group(2) else size - 1
            ok = start < size and start <= end
        if not ok:
            return self.send_error_xml(416, 'InvalidRange',
                                       'The requested range is not satisfiable',
                                       {'RangeRequested': rng,
                                        'ActualObjectSize': size})
        headers = [(k, v) for k, v in self.headers.items()
                   if k.lower() not in ('authorization', 'range')
                   and not k.lower().startswith('x-amz-')]
        headers.append(('Range', 'bytes=%d-' % start))
        target = self.raw_path
        kept = [(k, v) for k, v in parse_query(self.raw_query)
                if not k.startswith('X-Amz-')]
        if kept:
            target += '?' + '&'.join(uri_encode(k) + '=' + uri_encode(v) for k, v in kept)
        conn, resp = self.upstream('GET', target, headers, b'', False)
        if resp.status not in (200, 206):
            return self.relay(conn, resp, fault)
        want = end - start + 1
        return self.relay(conn, resp, fault, limit=want, status=206, extra={
            'Content-Range': 'bytes %d-%d/%d' % (start, end, size)})

    def list_uploads(self, bucket, q):
        st = self.state
        prefix = q.get('prefix', '')
        with st.lock:
            ups = sorted((u['key'], uid, u['initiated']) for uid, u in st.uploads.items()
                         if u['bucket'] == bucket and u['key'].startswith(prefix))
        x = ['<?xml version="1.0" encoding="UTF-8"?>\n<ListMultipartUploadsResult '
             'xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Bucket>',
             xml_escape(bucket), '</Bucket><KeyMarker></KeyMarker><UploadIdMarker>'
             '</UploadIdMarker><NextKeyMarker></NextKeyMarker><NextUploadIdMarker>'
             '</NextUploadIdMarker><Prefix>', xml_escape(prefix),
             '</Prefix><MaxUploads>1000</MaxUploads><IsTruncated>false</IsTruncated>']
        for k, uid, init in ups:
            x += ['<Upload><Key>', xml_escape(k), '</Key><UploadId>', uid,
                  '</UploadId><Initiator><ID>123456789000</ID><DisplayName>S3rver'
                  '</DisplayName></Initiator><Owner><ID>123456789000</ID><DisplayName>'
                  'S3rver</DisplayName></Owner><StorageClass>STANDARD</StorageClass>'
                  '<Initiated>', init, '</Initiated></Upload>']
        x.append('</ListMultipartUploadsResult>')
        self.send_plain(200, ''.join(x).encode())

    def abort_upload(self, bucket, key, q):
        st = self.state
        uid = q.get('uploadId')
        with st.lock:
            u = st.uploads.get(uid)
            known = u is not None and u['bucket'] == bucket and u['key'] == key
            if known:
                del st.uploads[uid]
                st.aborted.add(uid)
        if not known:
            return self.send_error_xml(404, 'NoSuchUpload',
                                       'The specified upload does not exist.',
                                       {'UploadId': uid})
        self.send_response(204)
        self.send_header('Content-Length', '0')
        self.end_headers()
        self.out_status = 204
        return None

    # ---- control API ------------------------------------------------------------
    def control(self):
        st = self.state
        self.read_body()
        cmd = self.raw_path[len('/__proxy/'):] if self.raw_path != '/__proxy' else ''
        q = dict(parse_query(self.raw_query))
        out = None
        with st.lock:
            if cmd == 'ping':
                out = {'ok': True, 'upstream': st.upstream}
            elif cmd == 'stats':
                out = {'total': st.total, 'methods': st.methods, 'ops': st.ops,
                       'objects': st.objects}
            elif cmd == 'log':
                since = int(q.get('since', '0'))
                out = {'log': [e for e in st.log if e['seq'] > since]}
            elif cmd == 'count':
                n = bi = bo = 0
                try:
                    kre = re.compile(q['key']) if q.get('key') else None
                except re.error as e:
                    return self.send_plain(400, ('bad key regex: %s\n' % e).encode(),
                                           'text/plain')
                for e in st.log:
                    if q.get('method') and e['method'] != q['method']:
                        continue
                    if q.get('op') and e['op'] != q['op']:
                        continue
                    if q.get('status') and str(e['status']) != q['status']:
                        continue
                    if kre and not kre.search(e['object']):
                        continue
                    n += 1
                    bi += e['bytes_in']
                    bo += e['bytes_out']
                return self.send_plain(200, ('%d %d %d\n' % (n, bi, bo)).encode(),
                                       'text/plain')
            elif cmd == 'reset':
                st.reset_counters()
                st.faults = []
                out = {'ok': True}
            elif cmd == 'clear':
                st.faults = []
                out = {'ok': True}
            elif cmd == 'faults':
                out = {'faults': st.faults}
            elif cmd == 'fault':
                kind = q.get('kind', '')
                if kind not in ('drop', 'drop_after', 'truncate', '503', '500', 'delay'):
                    return self.send_plain(400, ('unknown fault kind %r\n' % kind).encode(),
                                           'text/plain')
                try:
                    if q.get('key'):
                        re.compile(q['key'])
                    rule = {'kind': kind, 'count': int(q.get('count', '1')),
                            'method': q.get('method', '').upper(), 'op': q.get('op', ''),
                            'key': q.get('key', ''), 'ms': int(q.get('ms', '1000')),
                            'fired': 0}
                except (ValueError, re.error) as e:
                    return self.send_plain(400, ('bad fault: %s\n' % e).encode(),
                                           'text/plain')
                st.faults.append(rule)
                out = {'ok': True, 'rule': rule}
            elif cmd == 'overwrite':
                st.overwrite = q.get('on', '1') in ('1', 'on', 'true')
                out = {'overwrite': st.overwrite}
            elif cmd == 'auth':
                if 'anonymous' in q:
                    st.allow_anonymous = q['anonymous'] == 'allow'
                if 'verify' in q:
                    st.verify = q['verify'] in ('on', '1', 'true')
                out = {'anonymous': 'allow' if st.allow_anonymous else 'deny',
                       'verify': st.verify}
            elif cmd == 'uploads':
                out = {'uploads': st.uploads, 'aborted': sorted(st.aborted)}
        if out is None:
            return self.send_plain(404, ('unknown control command %r\n' % cmd).encode(),
                                   'text/plain')
        return self.send_plain(200, (json.dumps(out, sort_keys=True) + '\n').encode(),
                               'application/json')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--upstream', required=True, help='HOST:PORT of s3rver')
    ap.add_argument('--listen', default='127.0.0.1')
    ap.add_argument('--port', type=int, default=0)
    ap.add_argument('--port-file', help='write the bound port here once listening')
    ap.add_argument('--credentials', default='S3RVER:S3RVER',
                    help='KEY:SECRET[,KEY:SECRET...] accepted for Signature V4')
    a = ap.parse_args()
    creds = dict(c.split(':', 1) for c in a.credentials.split(',') if ':' in c)
    Handler.state = State(a.upstream, creds)
    http.server.ThreadingHTTPServer.allow_reuse_address = True
    srv = http.server.ThreadingHTTPServer((a.listen, a.port), Handler)
    srv.daemon_threads = True
    port = srv.server_address[1]
    if a.port_file:
        with open(a.port_file + '.tmp', 'w') as f:
            f.write('%d\n' % port)
        import os
        os.replace(a.port_file + '.tmp', a.port_file)
    print('s3_proxy listening on %s:%d -> %s' % (a.listen, port, a.upstream), flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == '__main__':
    sys.exit(main())
