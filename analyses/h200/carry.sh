#!/usr/bin/env bash
# The device copies the working tree (tracked files) plus what `carry` names, 64 MiB in all.
# The tracked tree is about 34 MiB (2026-12-03), much of it committed results the device does
# not read; with the wheels (6 MiB) and builds (4 MiB) that fits. When the stores grow past it,
# move those results aside before a call, and put them back before any commit:
#   bash analyses/h200/carry.sh aside     # then the `run` call, carrying .whl and .cache/*.tgz
#   bash analyses/h200/carry.sh restore
#   bash analyses/h200/carry.sh pack      # .cache/sl.tgz (builds) and .cache/ae.tgz (AccelEval)
# The corpus store keeps results/ (its done keys) on the device; trials/ and traces/ of the
# rows a call adds come back in corpus.tar.gz.
set -euo pipefail
cd "$(dirname "$0")/../.."
ASIDE=${CARRY_ASIDE:-/tmp/strategylens-aside}
DIRS="analyses/h200/earlier-run analyses/h200/results analyses/h200/trials analyses/h200/traces
analyses/throughput analyses/example-report analyses/h200-corpus/trials"
case "${1:-}" in
  aside)
    for d in $DIRS; do
      [ -d "$d" ] || continue
      mkdir -p "$ASIDE/$(dirname "$d")" && mv "$d" "$ASIDE/$d"
    done
    echo "moved aside to $ASIDE; tracked tree now $(git ls-files -z | xargs -0 stat -c %s 2>/dev/null \
        | awk '{s+=$1} END {printf "%.1f MiB", s/1048576}') of files still present" ;;
  restore)
    for d in $DIRS; do
      [ -d "$ASIDE/$d" ] || continue
      if [ -d "$d" ]; then cp -rn "$ASIDE/$d/." "$d/" && rm -rf "${ASIDE:?}/$d"
      else mkdir -p "$(dirname "$d")" && mv "$ASIDE/$d" "$d"; fi
    done
    git status --short | grep '^ D' && echo "some tracked files are still missing" || echo restored ;;
  pack)
    rm -rf .cache/sl/native
    tar -C .cache -czf .cache/sl.tgz sl
    tar -czf .cache/ae.tgz .acceleval .acceleval-store
    ls -la .cache/sl.tgz .cache/ae.tgz ;;
  *) echo "usage: $0 aside|restore|pack" >&2; exit 2 ;;
esac
