#!/usr/bin/env bash
# Times a first run of the README's serve command as a new user meets it: a fresh clone,
# no trunk, wasm-bindgen-cli or wasm-opt installed (a fresh install root and tools
# folder), a clean target folder. Prints the seconds until the page is served.
#   bash .ci/perf/first-run.sh [commit]      (default: HEAD)
# What it cannot make fresh: the cargo registry cache (no internet here) and the rustup
# toolchain with its wasm32 target. A measurement, not a test; run it on an idle machine.
set -u
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
commit=${1:-HEAD}
port=${PORT:-8099}
f=$(mktemp -d /tmp/brokerlab-first-run.XXXX)
mkdir -p "$f/home/.cargo/bin" "$f/tools" "$f/root/bin"
# Only the toolchain's own commands, so setup finds none of the tools installed.
for b in cargo rustc rustup rustfmt cargo-fmt cargo-clippy clippy-driver rustdoc; do
  [ -e "$HOME/.cargo/bin/$b" ] && ln -s "$HOME/.cargo/bin/$b" "$f/home/.cargo/bin/$b"
done
git clone -q "$repo" "$f/brokerlab" && git -C "$f/brokerlab" checkout -q "$commit"
cd "$f/brokerlab" || exit 1
cargo_home=${CARGO_HOME:-$HOME/.cargo} rustup_home=${RUSTUP_HOME:-$HOME/.rustup}
start=$(date +%s)
HOME=$f/home CARGO_HOME=$cargo_home RUSTUP_HOME=$rustup_home \
  CARGO_INSTALL_ROOT=$f/root BROKERLAB_TOOLS=$f/tools PORT=$port \
  PATH=$f/root/bin:/usr/local/bin:/usr/bin:/bin \
  setsid bash .ci/serve > "$f/serve.log" 2>&1 &
serve=$!
until curl -sf "http://127.0.0.1:$port/" 2>/dev/null | grep -q '_bg.wasm'; do
  sleep 2
  kill -0 "$serve" 2>/dev/null || { echo "serve stopped:"; tail "$f/serve.log"; exit 1; }
done
echo "page served after $(( $(date +%s) - start )) s (commit $(git rev-parse --short HEAD))"
ls -l --time-style=+%T "$f/root/bin" | grep -E 'trunk|wasm-bindgen$'
kill -- -"$serve" 2>/dev/null
echo "log and build: $f (delete it when done)"
