# Sourced by scripts/test.sh and scripts/fuzz.sh: compiles through ccache when it is
# installed (scripts/install-deps.sh installs it), so a second build of the same sources --
# another clone, a worktree, the next CI run on the same machine -- recompiles only what
# changed. Paths are taken relative to the clone (CCACHE_BASEDIR) and the build folder is
# not hashed, so clones at different places share the cache; a file that embeds an
# absolute path still misses and is rebuilt (the tests take theirs from one generated file,
# tests/support/test_paths.cc.in, for that reason). A cold cache
# costs a few percent over a plain build. Opt out with LITHIFY_NO_CCACHE=1.
# Sets the array ccache_args (CMake launcher arguments, empty without ccache).
ccache_args=()
if [[ "${LITHIFY_NO_CCACHE:-0}" != 1 ]] && command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
  export CCACHE_NOHASHDIR=1
  export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/lithify-ccache}"
  export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-30G}"
  ccache_args=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
