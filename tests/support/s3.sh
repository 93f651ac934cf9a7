#!/usr/bin/env bash
# A throwaway S3-compatible server for tests: moto's standalone server (Apache-2.0, from PyPI)
# on loopback only, checking every request's SigV4 signature, with one empty bucket.
#
#   tests/support/s3.sh start DIR   start it on a free 127.0.0.1 port, files and log in DIR;
#                                   print shell lines that export CAIRN_TEST_S3_ENDPOINT,
#                                   _REGION, _BUCKET, _ACCESS_KEY_ID and _SECRET_ACCESS_KEY:
#                                     eval "$(tests/support/s3.sh start "$dir")"
#   tests/support/s3.sh stop DIR    stop it (the caller removes DIR)
#
# moto runs from a virtual environment of its own, .venv-s3 at the repository root, made on
# first use from tests/support/s3-requirements.txt. The server answers the first three
# requests unauthenticated (they create an IAM user, its access key and an allow-all policy);
# from then on a request signed with any other key, or signed wrongly, gets 403.
set -euo pipefail
cd "$(dirname "$0")/../.."

venv=.venv-s3
req=tests/support/s3-requirements.txt
bucket=cairn-test
region=us-east-1

ensure_venv() {
  if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv" >&2
  fi
  if ! cmp -s "$req" "$venv/.requirements"; then
    echo "s3.sh: installing $(grep -v '^#' "$req" | tr '\n' ' ')into $venv" >&2
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$req" >&2
    cp "$req" "$venv/.requirements"
  fi
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Waits for the server, then creates the user, key, policy and bucket; prints the exports.
bootstrap() {
  "$venv/bin/python" - "$1" "$bucket" "$region" <<'EOF'
import json, shlex, socket, sys, time
import boto3

endpoint, bucket, region = sys.argv[1], sys.argv[2], sys.argv[3]
host, port = endpoint.rsplit("/", 1)[1].split(":")
deadline = time.monotonic() + 60
while True:
    try:
        socket.create_connection((host, int(port)), timeout=1).close()
        break
    except OSError:
        if time.monotonic() > deadline:
            sys.exit("s3.sh: the server did not start listening within 60 s")
        time.sleep(0.1)

anon = dict(endpoint_url=endpoint, region_name=region,
            aws_access_key_id="bootstrap", aws_secret_access_key="bootstrap")
iam = boto3.client("iam", **anon)
iam.create_user(UserName="cairn")
key = iam.create_access_key(UserName="cairn")["AccessKey"]
iam.put_user_policy(UserName="cairn", PolicyName="all", PolicyDocument=json.dumps(
    {"Version": "2012-10-17",
     "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}))
s3 = boto3.client("s3", endpoint_url=endpoint, region_name=region,
                  aws_access_key_id=key["AccessKeyId"],
                  aws_secret_access_key=key["SecretAccessKey"])
s3.create_bucket(Bucket=bucket)
for name, value in [("ENDPOINT", endpoint), ("REGION", region), ("BUCKET", bucket),
                    ("ACCESS_KEY_ID", key["AccessKeyId"]),
                    ("SECRET_ACCESS_KEY", key["SecretAccessKey"])]:
    print(f"export CAIRN_TEST_S3_{name}={shlex.quote(value)}")
EOF
}

case "${1:-}" in
  start)
    dir=${2:?usage: s3.sh start DIR}
    mkdir -p "$dir"
    ensure_venv
    port=$(free_port)
    INITIAL_NO_AUTH_ACTION_COUNT=3 nohup "$venv/bin/moto_server" -H 127.0.0.1 -p "$port" \
      >"$dir/server.log" 2>&1 </dev/null &
    echo $! >"$dir/pid"
    bootstrap "http://127.0.0.1:$port" || { tail -n 50 "$dir/server.log" >&2; exit 1; }
    ;;
  stop)
    dir=${2:?usage: s3.sh stop DIR}
    if [ -f "$dir/pid" ]; then
      pid=$(cat "$dir/pid")
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      rm -f "$dir/pid"
    fi
    ;;
  *)
    echo "usage: tests/support/s3.sh start|stop DIR" >&2
    exit 2
    ;;
esac
