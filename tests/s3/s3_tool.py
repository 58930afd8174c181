#!/usr/bin/env python3
"""boto3 client for the object-storage tests (issue 19): an independent S3 client that puts
what the tests need into s3rver and checks what paimon-c wrote there.

  s3_tool.py [--endpoint URL] [--retries N] CMD ...
    mkbucket B                         create bucket B (exists already: fine)
    upload-dir LOCALDIR s3://B/PREFIX  every file under LOCALDIR to PREFIX/relative/path
    download-dir s3://B/PREFIX LOCALDIR
    list [--long] s3://B/PREFIX        relative keys under PREFIX/, sorted, one a line
                                       (--long: KEY SIZE LAST_MODIFIED_EPOCH)
    compare-tree [--keys-only|--content] LOCALDIR s3://B/PREFIX
                                       same relative keys (and sizes, or bytes with
                                       --content) as the local tree; exit 1 with a diff
    pending-uploads [--prefix P] B     number of pending multipart uploads (through the
                                       proxy, which implements ListMultipartUploads)
    get s3://B/KEY [FILE|-]            the object's bytes (to stdout by default)
    put [--if-none-match] FILE|- s3://B/KEY
    rm s3://B/KEY...
    head s3://B/KEY                    SIZE ETAG LAST_MODIFIED_EPOCH
Endpoint: --endpoint, else S3_PROXY_ENDPOINT, else S3_ENDPOINT, else AWS_ENDPOINT_URL.
Credentials and region from the AWS_* environment (lib_s3.sh exports them).
Exit codes: 0 ok, 1 difference found (compare-tree) or precondition failed (put
--if-none-match on an existing key), 2 any other error (S3 error code printed).
"""

import argparse
import hashlib
import os
import sys

import boto3
import botocore.config
import botocore.exceptions


def parse_url(url):
    if not url.startswith('s3://'):
        raise SystemExit('s3_tool: not an s3:// URL: %s' % url)
    rest = url[5:]
    bucket, _, prefix = rest.partition('/')
    if not bucket:
        raise SystemExit('s3_tool: no bucket in %s' % url)
    return bucket, prefix.strip('/')


def client(args):
    endpoint = (args.endpoint or os.environ.get('S3_PROXY_ENDPOINT') or
                os.environ.get('S3_ENDPOINT') or os.environ.get('AWS_ENDPOINT_URL'))
    if not endpoint:
        raise SystemExit('s3_tool: no endpoint (--endpoint, S3_PROXY_ENDPOINT, S3_ENDPOINT)')
    cfg = botocore.config.Config(
        signature_version='s3v4', s3={'addressing_style': 'path'},
        retries={'max_attempts': args.retries, 'mode': 'standard'},
        connect_timeout=10, read_timeout=60)
    return boto3.client(
        's3', endpoint_url=endpoint, config=cfg,
        region_name=os.environ.get('AWS_REGION') or 'us-east-1',
        aws_access_key_id=os.environ.get('AWS_ACCESS_KEY_ID', 'S3RVER'),
        aws_secret_access_key=os.environ.get('AWS_SECRET_ACCESS_KEY', 'S3RVER'))


def list_objects(s3, bucket, prefix):
    """{relative key: (size, epoch, etag)} under prefix/ (the whole bucket if empty)."""
    out = {}
    pfx = prefix + '/' if prefix else ''
    token = None
    while True:
        kw = {'Bucket': bucket, 'Prefix': pfx, 'MaxKeys': 1000}
        if token:
            kw['ContinuationToken'] = token
        r = s3.list_objects_v2(**kw)
        for o in r.get('Contents', []):
            out[o['Key'][len(pfx):]] = (o['Size'], int(o['LastModified'].timestamp()),
                                        o['ETag'].strip('"'))
        if not r.get('IsTruncated'):
            break
        token = r['NextContinuationToken']
    return out


def local_tree(root):
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            rel = os.path.relpath(p, root).replace(os.sep, '/')
            out[rel] = p
    return out


def key_of(prefix, rel):
    return prefix + '/' + rel if prefix else rel


def cmd_mkbucket(s3, a):
    try:
        s3.create_bucket(Bucket=a.bucket)
    except botocore.exceptions.ClientError as e:
        if e.response['Error']['Code'] not in ('BucketAlreadyOwnedByYou',
                                               'BucketAlreadyExists'):
            raise
    return 0


def cmd_upload_dir(s3, a):
    bucket, prefix = parse_url(a.url)
    tree = local_tree(a.localdir)
    for rel in sorted(tree):
        with open(tree[rel], 'rb') as f:
            s3.put_object(Bucket=bucket, Key=key_of(prefix, rel), Body=f.read())
    print('uploaded %d files to s3://%s/%s' % (len(tree), bucket, prefix), file=sys.stderr)
    return 0


def cmd_download_dir(s3, a):
    bucket, prefix = parse_url(a.url)
    objs = list_objects(s3, bucket, prefix)
    for rel in sorted(objs):
        dst = os.path.join(a.localdir, *rel.split('/'))
        os.makedirs(os.path.dirname(dst) or '.', exist_ok=True)
        body = s3.get_object(Bucket=bucket, Key=key_of(prefix, rel))['Body'].read()
        with open(dst, 'wb') as f:
            f.write(body)
    return 0


def cmd_list(s3, a):
    bucket, prefix = parse_url(a.url)
    objs = list_objects(s3, bucket, prefix)
    for rel in sorted(objs):
        if a.long:
            print('%s %d %d' % (rel, objs[rel][0], objs[rel][1]))
        else:
            print(rel)
    return 0


def cmd_compare_tree(s3, a):
    bucket, prefix = parse_url(a.url)
    objs = list_objects(s3, bucket, prefix)
    tree = local_tree(a.localdir)
    diffs = []
    for rel in sorted(set(objs) | set(tree)):
        if rel not in objs:
            diffs.append('only local:  %s' % rel)
        elif rel not in tree:
            diffs.append('only on s3:  %s' % rel)
        elif not a.keys_only:
            size = os.path.getsize(tree[rel])
            if size != objs[rel][0]:
                diffs.append('size differs: %s local %d s3 %d' % (rel, size, objs[rel][0]))
            elif a.content:
                with open(tree[rel], 'rb') as f:
                    mine = hashlib.sha256(f.read()).hexdigest()
                body = s3.get_object(Bucket=bucket, Key=key_of(prefix, rel))['Body'].read()
                if hashlib.sha256(body).hexdigest() != mine:
                    diffs.append('bytes differ: %s' % rel)
    for d in diffs:
        print(d)
    if diffs:
        print('compare-tree: %d difference(s) between %s and s3://%s/%s'
              % (len(diffs), a.localdir, bucket, prefix), file=sys.stderr)
        return 1
    return 0


def cmd_pending_uploads(s3, a):
    kw = {'Bucket': a.bucket}
    if a.prefix:
        kw['Prefix'] = a.prefix
    n = 0
    while True:
        r = s3.list_multipart_uploads(**kw)
        n += len(r.get('Uploads', []))
        if not r.get('IsTruncated'):
            break
        kw['KeyMarker'] = r['NextKeyMarker']
        kw['UploadIdMarker'] = r['NextUploadIdMarker']
    print(n)
    return 0


def cmd_get(s3, a):
    bucket, key = parse_url(a.url)
    body = s3.get_object(Bucket=bucket, Key=key)['Body'].read()
    if a.file == '-':
        sys.stdout.buffer.write(body)
    else:
        with open(a.file, 'wb') as f:
            f.write(body)
    return 0


def cmd_put(s3, a):
    bucket, key = parse_url(a.url)
    if a.file == '-':
        data = sys.stdin.buffer.read()
    else:
        with open(a.file, 'rb') as f:
            data = f.read()
    kw = {'Bucket': bucket, 'Key': key, 'Body': data}
    if a.if_none_match:
        # boto3 1.26 has no IfNoneMatch parameter for PutObject: add the header
        def add_header(request, **_):
            request.headers['If-None-Match'] = '*'
        s3.meta.events.register_first('before-sign.s3.PutObject', add_header)
    try:
        s3.put_object(**kw)
    except botocore.exceptions.ClientError as e:
        if e.response['Error']['Code'] == 'PreconditionFailed':
            print('s3_tool: PreconditionFailed: s3://%s/%s exists' % (bucket, key),
                  file=sys.stderr)
            return 1
        raise
    return 0


def cmd_rm(s3, a):
    for url in a.urls:
        bucket, key = parse_url(url)
        s3.delete_object(Bucket=bucket, Key=key)
    return 0


def cmd_head(s3, a):
    bucket, key = parse_url(a.url)
    r = s3.head_object(Bucket=bucket, Key=key)
    print('%d %s %d' % (r['ContentLength'], r['ETag'].strip('"'),
                        int(r['LastModified'].timestamp())))
    return 0


def main():
    ap = argparse.ArgumentParser(prog='s3_tool.py', description=__doc__.split('\n')[0])
    ap.add_argument('--endpoint')
    ap.add_argument('--retries', type=int, default=3,
                    help='total attempts per call (botocore standard retry mode)')
    sub = ap.add_subparsers(dest='cmd', required=True)
    p = sub.add_parser('mkbucket')
    p.add_argument('bucket')
    p = sub.add_parser('upload-dir')
    p.add_argument('localdir')
    p.add_argument('url')
    p = sub.add_parser('download-dir')
    p.add_argument('url')
    p.add_argument('localdir')
    p = sub.add_parser('list')
    p.add_argument('--long', action='store_true')
    p.add_argument('url')
    p = sub.add_parser('compare-tree')
    g = p.add_mutually_exclusive_group()
    g.add_argument('--keys-only', action='store_true')
    g.add_argument('--content', action='store_true')
    p.add_argument('localdir')
    p.add_argument('url')
    p = sub.add_parser('pending-uploads')
    p.add_argument('--prefix')
    p.add_argument('bucket')
    p = sub.add_parser('get')
    p.add_argument('url')
    p.add_argument('file', nargs='?', default='-')
    p = sub.add_parser('put')
    p.add_argument('--if-none-match', action='store_true')
    p.add_argument('file')
    p.add_argument('url')
    p = sub.add_parser('rm')
    p.add_argument('urls', nargs='+')
    p = sub.add_parser('head')
    p.add_argument('url')
    a = ap.parse_args()
    s3 = client(a)
    fn = globals()['cmd_' + a.cmd.replace('-', '_')]
    try:
        return fn(s3, a)
    except botocore.exceptions.ClientError as e:
        err = e.response.get('Error', {})
        print('s3_tool: %s: %s %s (HTTP %s)' % (a.cmd, err.get('Code'), err.get('Message'),
              e.response.get('ResponseMetadata', {}).get('HTTPStatusCode')),
              file=sys.stderr)
        return 2
    except (botocore.exceptions.BotoCoreError, OSError) as e:
        print('s3_tool: %s: %s' % (a.cmd, e), file=sys.stderr)
        return 2


if __name__ == '__main__':
    sys.exit(main())
