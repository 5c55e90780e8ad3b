# Upright: `make run` and `make test` do all set-up on a fresh Debian bookworm machine.
SWIFT ?= swift
BUILD_FLAGS ?=
TRACES ?= bench/traces/public

.PHONY: all deps build release run demo test quality bench robustness lint clean deb piuparts kiosk-check ha-check fuzz check-web

all: build

deps:
	@scripts/install-deps.sh test

build: deps
	$(SWIFT) build $(BUILD_FLAGS)

release: deps
	$(SWIFT) build -c release $(BUILD_FLAGS)

# The main job on the built-in demo.
run: build
	$$($(SWIFT) build --show-bin-path)/upright demo

demo: run

# The detector's quality gate on the public traces, systemd's checks of the units the package
# installs (verify, and their exposure), then every Swift test (its summary is the last line).
# At most 8 tests at a time: many start compositors, players and brokers, and on two cores all of
# them at once starve each other's helpers past their time limits.
TEST_WIDTH ?= 8
test: deps
	$(SWIFT) build --build-tests $(BUILD_FLAGS)
	scripts/quality.sh --check $$($(SWIFT) build --show-bin-path)/upright
	scripts/check-units.sh $$($(SWIFT) build --show-bin-path)/upright
	$(SWIFT) test --skip-build $(BUILD_FLAGS) --experimental-maximum-parallelization-width $(TEST_WIDTH)

# The scorer's side-by-side table on the public traces.
quality: release
	scripts/quality.sh $$($(SWIFT) build -c release --show-bin-path)/upright

bench: release
	@scripts/install-deps.sh bench
	scripts/bench.sh $$($(SWIFT) build -c release --show-bin-path)

# A Debian package: the binary (Swift runtime linked in), /etc/upright, systemd units, man page.
deb:
	@scripts/install-deps.sh deb
	scripts/make-deb.sh

# The package as Debian's tools judge it: lintian --fail-on error, then piuparts's install, removal
# and purge in a bookworm chroot (minutes, the mirror needed: outside `make test`).
piuparts: deb
	@scripts/install-deps.sh package
	scripts/check-package.sh

# The package on a virtual kiosk (QEMU, software emulation: it takes minutes, outside `make test`):
# every packaged session through a reboot, judged by its screen, `ctl`, the journal and the
# kernel log; then the session start to first frame beside plain mpv. Results in .build/kiosk/results.
kiosk-check:
	@scripts/install-deps.sh kiosk
	scripts/kiosk-check/run.sh

# MQTT discovery against a real Home Assistant Core (from PyPI, in a virtual environment kept in
# ~/.cache/upright: minutes the first time) and mosquitto on loopback, outside `make test`.
ha-check: release
	@scripts/install-deps.sh ha
	scripts/ha_check.py $$($(SWIFT) build -c release --show-bin-path)

# The operator's page as its users' IT would check it, outside `make test` (minutes): the W3C Nu
# HTML checker, axe-core in a real headless Chromium, and a wapiti scan, on /login and the
# logged-in page of a real `upright play` on loopback. The checkers come from PyPI into a virtual
# environment in ~/.cache/upright.
check-web: build
	@scripts/install-deps.sh web
	scripts/check-web.sh $$($(SWIFT) build --show-bin-path)

clean:
	rm -rf .build .build-deb .build-fuzz

# The detector on resampled variants of the public traces (10-400 Hz), of the real recordings (held,
# cold held and carried, 10-400 Hz), then on synthetic traces of two rare cases (a rest on a steep stand at
# 72-78 degrees of tilt, a tablet handed across a table), and on the held recordings held lower (tipped
# 6, 10 and 14 degrees further back, towards flat: bench/lower.py), each beside the port of Android's detector.
ROBUST_DETECTORS = --detector upright="$$($(SWIFT) build -c release --show-bin-path)/upright replay" \
	--detector android="python3 bench/peers/android.py"
robustness: release
	rm -rf .build/robustness && mkdir -p .build/robustness
	python3 bench/perturb.py --traces $(TRACES) --out .build/robustness/public --variants 4 --seed 11 >/dev/null
	python3 bench/perturb.py --traces bench/traces/real/held --out .build/robustness/held --variants 2 --seed 5 \
		--rates 10,25,50,200,400 >/dev/null
	python3 bench/perturb.py --traces bench/traces/real/cold/held --out .build/robustness/cold-held --variants 2 \
		--seed 6 --rates 10,25,50,200,400 >/dev/null
	python3 bench/perturb.py --traces bench/traces/real/carried --out .build/robustness/carried --variants 2 \
		--seed 5 --rates 10,25,50,200,400 >/dev/null
	python3 bench/rare_cases.py --out .build/robustness/rare-cases --count 20 --seed 7 >/dev/null
	python3 bench/lower.py --traces bench/traces/real/held --out .build/robustness/held-lower --angles 6,10,14 >/dev/null
	python3 bench/lower.py --traces bench/traces/real/cold/held --out .build/robustness/cold-held-lower \
		--angles 6,10,14 >/dev/null
	for set in public held cold-held carried rare-cases held-lower cold-held-lower; do \
		python3 bench/score.py --traces .build/robustness/$$set --isolate --jobs 2 $(ROBUST_DETECTORS) || exit 1; \
	done

# Every parser of outside bytes under libFuzzer and AddressSanitizer, FUZZ_SECONDS each (60).
fuzz:
	scripts/fuzz.sh

# Formatting and style (.swift-format), as the toolchain's swift-format sees them.
lint:
	$(SWIFT) format lint --strict -r Sources Tests Benchmarks Package.swift
