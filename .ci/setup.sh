#!/usr/bin/env bash
# Installs whatever Broker Lab's build and tests need and is missing, then exports the
# environment for the wasm steps. Source it (`. scripts/setup.sh [web|browser]`):
#   (no argument)  native toolchain only (fmt, clippy, native tests)
#   web            + wasm32 std, trunk, wasm-bindgen-cli, wasm-opt (build and serve the app)
#   browser        + Chromium, chromedriver and playwright-core (browser tests)
# Each step checks first and skips what is there, so a second run costs seconds.
# Pins: see ../shared/TOOLCHAIN.md in the steering repo; they are repeated here on purpose.

TRUNK_VERSION=0.21.14
WASM_BINDGEN_VERSION=0.2.130
BINARYEN_VERSION=132.0.0

BL_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BL_TOOLS="${BROKERLAB_TOOLS:-$HOME/.cache/brokerlab-tools}"
mkdir -p "$BL_TOOLS"

bl_log() { printf '\033[1m[setup]\033[0m %s\n' "$*" >&2; }

bl_as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

bl_apt_updated=""
bl_apt_install() {
  local missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ -z "$bl_apt_updated" ]; then
    bl_log "apt-get update"
    bl_as_root apt-get update -qq >/dev/null || return 1
    bl_apt_updated=1
  fi
  bl_log "apt-get install ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive bl_as_root apt-get install -y -qq "${missing[@]}" >/dev/null
}

bl_native() {
  export PATH="$HOME/.cargo/bin:$PATH"
  if ! command -v cargo >/dev/null 2>&1; then
    bl_log "no cargo: installing Debian's Rust"
    bl_apt_install rustc cargo rustfmt rust-clippy || return 1
  fi
  command -v gcc >/dev/null 2>&1 || bl_apt_install gcc
  if command -v rustup >/dev/null 2>&1; then
    rustup component list --installed 2>/dev/null | grep -q '^rustfmt' || rustup component add rustfmt >/dev/null 2>&1
    rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy >/dev/null 2>&1
  fi
  return 0
}

# The wasm32 standard library. Normal path: rustup's target. Fallback: Debian's Rust with
# its std sources, built with build-std (only for wasm steps; native steps stay untouched).
bl_wasm_std() {
  export BL_WASM_FALLBACK=""
  if command -v rustup >/dev/null 2>&1; then
    if rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
      return 0
    fi
    bl_log "rustup target add wasm32-unknown-unknown"
    if timeout 120 rustup target add wasm32-unknown-unknown >/dev/null 2>&1; then
      return 0
    fi
    bl_log "rustup could not download the wasm32 target: falling back to Debian's Rust + build-std"
  fi
  bl_apt_install rustc-web cargo-web rust-web-src lld-22 || {
    bl_log "Debian fallback failed too"; return 1; }
  export BL_WASM_FALLBACK=1
}

# Environment for commands that build wasm (trunk, cargo --target wasm32-unknown-unknown).
bl_wasm_env() {
  if [ -n "${BL_WASM_FALLBACK:-}" ]; then
    export PATH="/usr/bin:$PATH"
    export RUSTC_BOOTSTRAP=1
    export CARGO_UNSTABLE_BUILD_STD=std,panic_abort
  fi
}

bl_cargo_tool() { # name version crate [extra install args]
  local bin=$1 version=$2 crate=$3
  if command -v "$bin" >/dev/null 2>&1 && "$bin" --version 2>/dev/null | grep -q "$version"; then
    return 0
  fi
  bl_log "cargo install $crate@$version (a few minutes, once)"
  bl_tool_profile cargo install --quiet --locked "$crate" --version "=$version" >/dev/null 2>&1 && return 0
  # wasm-bindgen-cli's own lock pins a crate version the registry may not serve: let cargo resolve.
  bl_log "locked install failed; installing $crate@$version with fresh resolution"
  bl_tool_profile cargo install --quiet "$crate" --version "=$version"
}

# The pinned tools are built once per machine and spend their life waiting on cargo and
# the browser, so they get a cheap profile instead of their own release one (fat LTO,
# one codegen unit): about a third of the build time for the same versions. Cargo's
# configuration (here, its environment) overrides a package's own [profile.release].
bl_tool_profile() {
  CARGO_PROFILE_RELEASE_OPT_LEVEL=${BL_TOOL_OPT_LEVEL:-1} \
  CARGO_PROFILE_RELEASE_LTO=off \
  CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
  CARGO_PROFILE_RELEASE_DEBUG=false \
  CARGO_PROFILE_RELEASE_STRIP=true \
  CARGO_PROFILE_RELEASE_INCREMENTAL=false \
    "$@"
}

bl_web() {
  bl_native || return 1
  bl_wasm_std || return 1
  command -v npm >/dev/null 2>&1 || bl_apt_install nodejs npm || return 1
  # trunk only watches files, runs cargo and serves them: unoptimised is quick enough.
  # wasm-bindgen rewrites the app's module on every build, so it keeps opt-level 1.
  BL_TOOL_OPT_LEVEL=0 bl_cargo_tool trunk "$TRUNK_VERSION" trunk || return 1
  bl_cargo_tool wasm-bindgen "$WASM_BINDGEN_VERSION" wasm-bindgen-cli || return 1
  # wasm-opt from npm's binaryen: Debian's binaryen is too old and breaks the module.
  if [ ! -x "$BL_TOOLS/node_modules/.bin/wasm-opt" ]; then
    bl_log "npm install binaryen@$BINARYEN_VERSION"
    (cd "$BL_TOOLS" && npm install --silent --no-audit --no-fund "binaryen@$BINARYEN_VERSION" >/dev/null) || return 1
  fi
  # bl_wasm_env may put /usr/bin first (fallback path); npm's wasm-opt must still win over
  # a Debian binaryen there, so it goes in front afterwards.
  bl_wasm_env
  export PATH="$BL_TOOLS/node_modules/.bin:$PATH"
  export TRUNK_SKIP_VERSION_CHECK=true
}

bl_browser() {
  bl_web || return 1
  bl_apt_install chromium chromium-driver || return 1
  export CHROMEDRIVER=/usr/bin/chromedriver
  export WASM_BINDGEN_TEST_WEBDRIVER_JSON="$BL_ROOT/tests/webdriver.json"
  export WASM_BINDGEN_TEST_TIMEOUT=120
  if [ ! -d "$BL_ROOT/tests/e2e/node_modules/playwright-core" ]; then
    bl_log "npm ci (playwright-core, drives Debian's Chromium)"
    (cd "$BL_ROOT/tests/e2e" && npm ci --silent --no-audit --no-fund >/dev/null) || return 1
  fi
}

case "${1:-}" in
  "") bl_native ;;
  web) bl_web ;;
  browser) bl_browser ;;
  *) bl_log "unknown setup level: $1"; false ;;
esac
