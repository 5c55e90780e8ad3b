#!/usr/bin/env bash
# `make fuzz`: each parser of outside bytes under libFuzzer with AddressSanitizer, one after the
# other, FUZZ_SECONDS each (60 by default), from the seed corpus in Tests/FuzzSeeds/TARGET (the
# corpus grows in .build-fuzz/corpus; findings go to .build-fuzz/findings). Fails on a crash, a
# leak or an input that takes over 10 s. A finding, once fixed, is copied into the seeds, which
# `make test` replays.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh build
seconds=${FUZZ_SECONDS:-60}
flags=(--scratch-path .build-fuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING -Xswiftc -parse-as-library)
swift build --product upright-fuzz "${flags[@]}"
bin="$(swift build "${flags[@]}" --show-bin-path)/upright-fuzz"
declare -A parser=(
    [toml]="the TOML reader and the configuration read from it"
    [list]="a remote list's lines"
    [wire]="the wire between upright and its mpv process"
    [json]="the control socket's and the page's JSON (StrictJSON)"
    [group]="a wall's group messages: topics, words and seals"
    [edid]="a monitor's EDID (its make, model and serial)"
    [smil]="a SMIL index: the reader, then its presentation played for a minute"
    [kernel]="the kernel log's records (storage errors)"
    [version]="the update source's answer (the newest version)"
)
status=0
for target in toml list wire json group edid smil kernel version; do
    echo "fuzz target $target: ${parser[$target]}, $seconds s"
    corpus=.build-fuzz/corpus/$target findings=.build-fuzz/findings/$target/
    mkdir -p "$corpus" "$findings"
    cp -n Tests/FuzzSeeds/$target/* "$corpus"/
    # libFuzzer's progress lines left out; its closing lines and any finding kept.
    if ! LSAN_OPTIONS=suppressions=scripts/lsan-suppressions.txt UPRIGHT_FUZZ=$target "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=65536 \
        -print_final_stats=0 -artifact_prefix="$findings" "$corpus" 2>&1 | grep -vE '^#[0-9]+|^INFO: |^MERGE|NEW_FUNC|^"|^###### '; then
        status=1
        echo "fuzz target $target: a finding, kept in $findings"
    fi
done
exit $status
