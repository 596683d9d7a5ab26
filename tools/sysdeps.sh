#!/usr/bin/env bash
# System packages some tests drive for real, installed once before pytest starts (so parallel
# test workers never race for apt's lock): bubblewrap (the sealed grading sandbox), Chromium
# (browser tests) and PostgreSQL (the gradebook on a real server). Where apt-get or root is
# missing, say so; the tests that need a package then skip with the reason.
set -u
wanted=()
command -v bwrap >/dev/null || wanted+=(bubblewrap)
command -v chromium >/dev/null || wanted+=(chromium chromium-driver)
ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || wanted+=(postgresql)
[ ${#wanted[@]} -eq 0 ] && exit 0
if ! command -v apt-get >/dev/null || [ "$(id -u)" != 0 ]; then
    echo "tools/sysdeps.sh: cannot install ${wanted[*]} (needs apt-get as root); tests that need them will skip" >&2
    exit 0
fi
echo "tools/sysdeps.sh: installing ${wanted[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends "${wanted[@]}" >/dev/null \
    || echo "tools/sysdeps.sh: apt-get could not install ${wanted[*]}" >&2
exit 0
