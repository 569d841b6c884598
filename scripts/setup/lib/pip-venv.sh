# Sourced by the setup steps: a pinned Python tool in a project-local venv. Not a step itself
# (scripts/setup.sh runs only scripts/setup/*.sh and scripts/setup/tests/*.sh).

# installed_version VENV PACKAGE: PACKAGE's version in VENV, or nothing. Read from the package
# metadata: `semgrep --version` would ask Semgrep's servers for the latest release and, with no
# network, hang for over a minute.
installed_version() {
  "$1/bin/python" -c "import importlib.metadata as m; print(m.version('$2'))" 2>/dev/null || true
}

# ensure_venv_module: python3 with its venv module (Debian/Ubuntu split it, and ensurepip, out).
ensure_venv_module() {
  if python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    return 0
  fi
  if command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing python3-venv for the project's Python tools"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q python3-venv >/dev/null 2>&1 || {
      apt-get update -q >/dev/null && apt-get install -y -q python3-venv >/dev/null
    }
  else
    echo "setup: python3 lacks the venv module and apt-get is not available" >&2
    exit 1
  fi
}

# ensure_pinned_tool VENV PACKAGE VERSION BIN: PACKAGE==VERSION in VENV (made if missing), with
# VENV/bin/BIN. Idempotent: a no-op when that exact version is already there.
ensure_pinned_tool() {
  local venv=$1 package=$2 version=$3 bin=$4
  if [ -x "$venv/bin/$bin" ] && [ "$(installed_version "$venv" "$package")" = "$version" ]; then
    return 0
  fi
  ensure_venv_module
  if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
  fi
  echo "setup: installing $package $version into $venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
    "$package==$version"
  echo "setup: $package $(installed_version "$venv" "$package") ready"
}
