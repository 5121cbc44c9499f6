# pidspawn: pristine process creation with pidfd_open(PIDFD_EMPTY) and
# pidfd_config(). See README.md.
#
#   make run       build what is missing, boot the guest, run the demo
#   make check     host checks and suites, then all guest suites
#   make shell     an interactive guest shell
#   make bench     spawn ratios (fork, vfork, pidfd_config) in one guest run
#   make fuzz      the pidfd_config() fuzzer, on the debug kernel by default
#   make check KCONFIG=debug   the same on the KASAN/lockdep/kmemleak kernel
#   make kernel-tree / make kernel-patches   the kernel development loop

PIDSPAWN_CACHE ?= $(HOME)/.cache/pidspawn
KCONFIG ?= default
export PIDSPAWN_CACHE KCONFIG

BUILD := $(CURDIR)/build/$(KCONFIG)
KBUILD := $(PIDSPAWN_CACHE)/kbuild/$(KCONFIG)
KTREE := $(PIDSPAWN_CACHE)/linux
BZIMAGE := $(KBUILD)/arch/x86/boot/bzImage
# The debug kernel (KASAN, lockdep, kmemleak) is several times slower.
GUEST_TIMEOUT ?= $(if $(filter debug,$(KCONFIG)),10800,3600)
PIDSPAWN_TEST_TIMEOUT ?= $(if $(filter debug,$(KCONFIG)),3600,900)
export PIDSPAWN_TEST_TIMEOUT
GUEST_OPTS := --timeout $(GUEST_TIMEOUT) $(if $(KVM),--kvm)

.PHONY: all deps kernel image userspace run shell bench fuzz check check-debug \
	kernel-tree kernel-patches series-check fresh-check clean

all: kernel image userspace

deps:
	@images/install-deps.sh

kernel: deps
	@kernel-patches/kernel.sh build

image: deps
	@images/build-image.sh >/dev/null

userspace: deps
	@$(MAKE) -s -C userspace

run: kernel image userspace
	@rm -rf $(BUILD)/run && mkdir -p $(BUILD)/run
	@$(MAKE) -s -C userspace stage DEST=$(BUILD)/run/userspace
	@printf '%s\n' 'uname -sr' 'cd userspace && ./demo/pidspawn-demo' > $(BUILD)/run/job.sh
	@echo "run: booting the guest (TCG); serial log in $(BUILD)/run/serial.log"
	@images/run-guest.sh --kernel $(BZIMAGE) --image $$(images/build-image.sh) \
		$(GUEST_OPTS) $(BUILD)/run; rc=$$?; cat $(BUILD)/run/job.out; exit $$rc

# BENCH_ARGS: -n spawns per method, -s scenarios, -m methods, -c children
# (comma lists; see userspace/demo/pidspawn-bench.c). The CSV goes to
# build/bench/results.csv (and beside the run, in $(BUILD)/bench). A quick subset: BENCH_ARGS="-n 100 -s small".
BENCH_ARGS ?= -n 200
# make-bench.sh: rules and rounds of GNU make -j2, plain and with the shim.
MAKE_BENCH_ARGS ?= 300 3

bench: kernel image userspace
	@rm -rf $(BUILD)/bench && mkdir -p $(BUILD)/bench
	@$(MAKE) -s -C userspace stage DEST=$(BUILD)/bench/userspace
	@printf '%s\n' 'uname -sr' 'nproc' \
		'cd userspace && ./demo/pidspawn-bench -o /mnt/host/results.csv $(BENCH_ARGS)' \
		'./demo/make-bench.sh $(MAKE_BENCH_ARGS)' \
		> $(BUILD)/bench/job.sh
	@images/run-guest.sh --kernel $(BZIMAGE) --image $$(images/build-image.sh) \
		$(GUEST_OPTS) $(BUILD)/bench; rc=$$?; cat $(BUILD)/bench/job.out; \
		mkdir -p build/bench && cp -f $(BUILD)/bench/results.csv build/bench/ 2>/dev/null; \
		exit $$rc

# The fuzzer for FUZZ_SECONDS (FUZZ_SEED reruns a seed it printed), on the
# debug kernel unless KCONFIG is given: its KASAN, lockdep and kmemleak
# reports are what a fuzz run is for, and fail the run.
FUZZ_SECONDS ?= 600
FUZZ_THREADS ?= 4
FUZZ_SEED ?=

ifeq ($(origin KCONFIG),file)
fuzz:
	@$(MAKE) fuzz KCONFIG=debug
else
fuzz: kernel image userspace
	@rm -rf $(BUILD)/fuzz && mkdir -p $(BUILD)/fuzz
	@$(MAKE) -s -C userspace stage DEST=$(BUILD)/fuzz/userspace
	@printf '%s\n' 'uname -sr' 'cd userspace && ./tests/pidfd-fuzz --seconds $(FUZZ_SECONDS) --threads $(FUZZ_THREADS) $(if $(FUZZ_SEED),--seed $(FUZZ_SEED))' \
		> $(BUILD)/fuzz/job.sh
	@images/run-guest.sh --kernel $(BZIMAGE) --image $$(images/build-image.sh) \
		$(GUEST_OPTS) --timeout $$(($(GUEST_TIMEOUT) + $(FUZZ_SECONDS))) $(BUILD)/fuzz; \
		rc=$$?; cat $(BUILD)/fuzz/job.out; exit $$rc
endif

shell: kernel image userspace
	@rm -rf $(BUILD)/shell && mkdir -p $(BUILD)/shell
	@$(MAKE) -s -C userspace stage DEST=$(BUILD)/shell/userspace
	@cp -a $(KBUILD)/kselftest_install $(BUILD)/shell/kselftest
	@images/run-guest.sh --interactive --kernel $(BZIMAGE) \
		--image $$(images/build-image.sh) $(GUEST_OPTS) $(BUILD)/shell

check: kernel image userspace
	@selftests/check.sh $(CURDIR) $(KBUILD) $(KTREE) $$(images/build-image.sh) \
		$(BUILD) $(GUEST_OPTS)

check-debug:
	@$(MAKE) check KCONFIG=debug

# The kernel development loop: a git tree with the series as commits.
kernel-tree: deps
	@kernel-patches/kernel.sh dev-tree

kernel-patches:
	@kernel-patches/kernel.sh export-series

# Every patch of the series builds on its own (slow: one build a patch).
series-check: deps
	@kernel-patches/kernel.sh each-patch

# The README's two commands on a brand-new Debian 12 root (debootstrap,
# chroot, a clone of HEAD, empty caches): slow (~25+ min), not part of CI.
fresh-check:
	@images/fresh-check.sh

clean:
	rm -rf build
	@$(MAKE) -s -C userspace clean
