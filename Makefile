# cgward: kernel-enforced write roots for cgroups.
# `make help` lists the targets.

CLANG     ?= clang
CC        ?= cc
BPFTOOL   ?= bpftool
BUILD     := build
ARCH      := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')

# Build dependencies alone are what deploy/Containerfile installs (make deps-build).
DEB_BUILD_PACKAGES := clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev libyaml-dev \
	libjansson-dev libevent-dev libnghttp2-dev libprotobuf-c-dev protobuf-c-compiler libmd-dev \
	pkg-config make gcc
# systemd: systemd-analyze verify for test-deploy (node and npm come with the machine).
# prometheus: promtool, and a server of the test's own that scrapes the agent in the VM.
# dpkg-dev (dpkg-shlibdeps) and lintian: make deb and make test-deb.
# containerd (its CRI plugin) and runc: make test-kubernetes runs pods with them in the VM.
# e2fsprogs, util-linux, bsdutils (script), less and vim: the suite's ext4, loop device and
# terminal tests.
# python3-pytest, and a venv that pip installs the Python client into: make test-python.
# chromium: t_proc_self.sh runs it headless, with its sandbox, inside a root.
# iputils-ping and iproute2: ping (NET_RAW) and ip (NET_ADMIN) in the suite's capability tests.
# apparmor: a caller under a profile of its own in the exec socket's tests (the VM boots with AppArmor).
DEB_TEST_PACKAGES := libcmocka-dev clang-format libclang-rt-14-dev qemu-system-x86 \
	linux-image-amd64 busybox-static cpio xz-utils procps kmod bubblewrap chromium valgrind jq \
	systemd prometheus curl mandoc dpkg-dev lintian git sqlite3 python3 containerd runc e2fsprogs \
	util-linux bsdutils less vim python3-pytest python3-setuptools python3-wheel python3-pip \
	python3-venv iputils-ping iproute2 apparmor
DEB_PACKAGES := $(DEB_BUILD_PACKAGES) $(DEB_TEST_PACKAGES)

# make install DESTDIR=... PREFIX=...; CGWARD_BIN lets a test install a stand-in.
PREFIX     ?= /usr/local
BINDIR     := $(PREFIX)/bin
DOCDIR     := $(PREFIX)/share/doc/cgward
MANDIR     := $(PREFIX)/share/man
MAN_PAGES  := $(sort $(wildcard man/*.[58]))
# The README's reference, installed beside it so that its links to docs/ resolve.
DOC_FILES  := $(sort $(wildcard docs/*.md))
CGWARD_BIN ?= $(BUILD)/cgward
# The one place the version is set: cgward --version, the metrics' build info, make deb.
VERSION    := 0.1.0

WARNINGS  := -Wall -Wextra -Werror
CFLAGS    ?= -O2 -g
# user/ has a folder per concern; headers are included by name from any of them.
USER_DIRS := $(sort $(dir $(wildcard user/*/*.c user/*/*.h)))
USER_INCS := $(patsubst %/,-I%,$(USER_DIRS))
# -D options that change the plane's ABI (bpf/cgward_abi.h), for the BPF
# programs and the userspace that reads their maps alike: a test build's.
ABI_DEFINES ?=
CFLAGS    += $(WARNINGS) -std=gnu11 -D_GNU_SOURCE -DCGWARD_VERSION='"$(VERSION)"' -I$(BUILD) \
	-Ibpf $(USER_INCS) $(ABI_DEFINES)
# libmd: the SHA-256 that names a policy file's content (metrics, status, events).
LDLIBS    := -lbpf -lelf -lz -lyaml -ljansson -lnghttp2 -lprotobuf-c -levent_extra -levent_core \
	-lmd -lpthread

BPF_SRCS  := $(sort $(wildcard bpf/*.bpf.c))
BPF_OBJS  := $(patsubst bpf/%.bpf.c,$(BUILD)/bpf/%.bpf.o,$(BPF_SRCS))
# The same sources for kernels before 5.12, whose verifier refuses pointer
# arguments to global functions (bpf/walk.bpf.h); the loader picks one.
BPF_SCALAR_OBJS := $(patsubst bpf/%.bpf.c,$(BUILD)/bpf-scalar/%.bpf.o,$(BPF_SRCS))
BPF_HDRS  := $(wildcard bpf/*.h)
# -D options of a build's own for the BPF programs, such as the second build of the tests.
BPF_DEFINES ?=
# The objects' identity (cgward_object.h) is a hash of their bytes, so they must
# not depend on where the tree is: BTF's line info joins each source's name to
# the compilation directory, which is named "." instead of the build's path.
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Ivmlinux -Ibpf $(WARNINGS) \
	-Wno-unused-parameter -Wno-missing-declarations -fdebug-compilation-dir=. $(BPF_DEFINES) \
	$(ABI_DEFINES)

# protoc-c writes the C of each user/<concern>/<name>.proto (the CRI's messages)
# to $(BUILD)/<concern>/<name>.pb-c.[ch].
PROTOS        := $(sort $(wildcard user/*/*.proto))
PROTO_SRCS    := $(patsubst user/%.proto,$(BUILD)/%.pb-c.c,$(PROTOS))
# Object names relative to an object directory: kubernetes/cri_sandbox.pb-c.o.
PROTO_OBJS    := $(patsubst user/%.proto,%.pb-c.o,$(PROTOS))

# Every user/*/*.c but main.c is library code, linked into cgward and the unit tests,
# and so is the C generated from the .proto files.
USER_LIB_SRCS := $(filter-out user/cmd/main.c,$(sort $(wildcard user/*/*.c)))
USER_HDRS     := $(wildcard user/*/*.h) bpf/cgward_abi.h $(PROTO_SRCS:.c=.h)
UNIT_SRCS     := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS     := $(patsubst tests/unit/%.c,$(BUILD)/unit/%,$(UNIT_SRCS))
ASAN_BINS     := $(patsubst tests/unit/%.c,$(BUILD)/unit-asan/%,$(UNIT_SRCS))
SANITIZE      := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

# Every tests/fuzz/fuzz_<name>.c is a libFuzzer target with its seeds in tests/fuzz/corpus/<name>/.
# Library sources that use the BPF skeleton are left out, so fuzzing needs no BPF toolchain.
FUZZ_SRCS      := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_NAMES     := $(patsubst tests/fuzz/fuzz_%.c,%,$(FUZZ_SRCS))
FUZZ_BINS      := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRCS))
FUZZ_LIB_SRCS  := $(filter-out $(shell grep -l 'skel\.h' $(USER_LIB_SRCS) /dev/null),$(USER_LIB_SRCS))
FUZZ_SECONDS   ?= 60
FUZZ_SANITIZE  := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
FUZZ_CFLAGS    := -g -O1 $(WARNINGS) -std=gnu11 -D_GNU_SOURCE -I$(BUILD) -Ibpf $(USER_INCS) \
	$(FUZZ_SANITIZE)

.PHONY: all help deps vmlinux test test-leaks test-unit test-unit-asan test-integration test-vm demo \
	bench fuzz fuzz-regress format check-format clean install deps-build test-deploy test-man deb \
	test-deb test-reproducible \
	deps-kernels test-kernels test-vm-kernels test-vm-asan test-stress build-bench test-kubernetes \
	test-python

all: $(BUILD)/cgward

help:
	@echo 'make deps              install the Debian packages cgward needs (apt-get)'
	@echo 'make deps-build        install only the packages needed to build cgward'
	@echo 'make install           install cgward, its systemd unit, default policy and man pages (DESTDIR, PREFIX)'
	@echo 'make test-deploy       check the install, systemd unit, Containerfile and Kubernetes manifests'
	@echo 'make test-man          lint the man pages (mandoc), check them against --help and the schema'
	@echo 'make deb               build/cgward_VERSION_ARCH.deb (dpkg-deb; Depends from dpkg-shlibdeps)'
	@echo 'make test-deb          lintian and content checks of the .deb (the VM suite installs it)'
	@echo 'make test-reproducible  the BPF objects built in two other directories: the same identity'
	@echo 'make                   build build/cgward (the BPF object is embedded)'
	@echo 'make demo              enforce a boundary on a command (in the test VM if this kernel cannot)'
	@echo 'make test              unit tests, sanitizer build, integration suite on 5.10, 6.1 and 6.12'
	@echo 'make test-integration  the integration suite on this kernel (needs BPF LSM)'
	@echo 'make test-vm           the integration suite inside tests/vm/run, and its ASan subset'
	@echo 'make test-kernels      the integration suite on 5.10, 6.1 and 6.12 (make deps-kernels fetches 5.10, 6.12)'
	@echo 'make test-vm-asan      the ASan subset of the integration suite in the VM (build/cgward-asan)'
	@echo 'make test-stress       256 concurrent cgward exec runs for 30 s (not part of make test)'
	@echo 'make test-kubernetes   pods through the CRI of containerd in the VM, confined by the agent'
	@echo 'make test-python       the Python client (clients/python): here, then real runs in the VM'
	@echo 'make bench             overhead benchmarks (not part of make test)'
	@echo 'make fuzz              run each fuzz target for FUZZ_SECONDS (default 60)'
	@echo 'make fuzz-regress      run each fuzz target once over its committed corpus'
	@echo 'make vmlinux           regenerate vmlinux/vmlinux.h from this kernel'
	@echo 'make format            clang-format every C file'

# prometheus's and containerd's postinst enable and start a daemon under
# systemd: the tests need neither on the host (make test-kubernetes runs its own
# containerd in the VM), so a running one is stopped and disabled (without
# systemd as init, is-active fails and nothing runs). Without systemd,
# invoke-rc.d would start containerd's init script: a policy-rc.d that forbids
# starting services is put in place for the install unless one exists. make
# test runs the suite on bullseye's and trixie's kernels too: deps fetches them.
deps:
	apt-get update
	if [ -e /usr/sbin/policy-rc.d ]; then \
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(DEB_PACKAGES); \
	else \
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d; \
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(DEB_PACKAGES); \
		status=$$?; rm -f /usr/sbin/policy-rc.d; exit $$status; \
	fi
	for daemon in prometheus containerd; do \
		if systemctl is-active -q $$daemon 2>/dev/null; then systemctl disable --now $$daemon; fi; \
	done
	tests/vm/fetch-kernels

deps-build:
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(DEB_BUILD_PACKAGES)

# A stand-in CGWARD_BIN is a plain file prerequisite: it installs without a toolchain.
# An existing /etc/cgward/policy.yaml is the administrator's and is kept.
install: $(CGWARD_BIN)
	install -D -m 0755 $(CGWARD_BIN) $(DESTDIR)$(BINDIR)/cgward
	install -d -m 0755 $(DESTDIR)/lib/systemd/system
	sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@DOCDIR@|$(DOCDIR)|g' deploy/systemd/cgward.service.in \
		> $(DESTDIR)/lib/systemd/system/cgward.service
	chmod 0644 $(DESTDIR)/lib/systemd/system/cgward.service
	test -e $(DESTDIR)/etc/cgward/policy.yaml || \
		install -D -m 0644 deploy/policy.yaml $(DESTDIR)/etc/cgward/policy.yaml
	install -D -m 0644 README.md $(DESTDIR)$(DOCDIR)/README.md
	install -D -m 0644 -t $(DESTDIR)$(DOCDIR)/docs $(DOC_FILES)
	@set -e; for page in $(MAN_PAGES); do \
		dir=$(DESTDIR)$(MANDIR)/man$${page##*.}; install -d -m 0755 $$dir; \
		gzip -9nc $$page > $$dir/$$(basename $$page).gz; chmod 0644 $$dir/$$(basename $$page).gz; \
	done

test-deploy:
	tests/deploy/run

# The Debian package, from a make install DESTDIR=... PREFIX=/usr tree.
DEB_ARCH := $(shell dpkg --print-architecture 2>/dev/null)
DEB      := $(BUILD)/cgward_$(VERSION)_$(DEB_ARCH).deb

deb: $(DEB)

$(DEB): $(BUILD)/cgward $(MAN_PAGES) README.md $(DOC_FILES) deploy/policy.yaml deploy/systemd/cgward.service.in \
		$(wildcard deploy/debian/*)
	deploy/debian/build-deb $(VERSION) $@

test-deb: $(DEB)
	tests/deb/check $(VERSION) $(DEB)

# A plane is adopted only by a cgward of the same objects: two trees of the
# same source, at other paths, must make the same CGWARD_OBJECT_HASH.
test-reproducible:
	tests/reproducible/run

# mandoc -Tlint, and each page against its command's --help and policy/schema.md.
test-man: $(BUILD)/cgward
	tests/man/run

vmlinux:
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > vmlinux/vmlinux.h

$(BUILD)/bpf/%.bpf.o: bpf/%.bpf.c $(BPF_HDRS) vmlinux/vmlinux.h | $(BUILD)/bpf
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/bpf-scalar/%.bpf.o: bpf/%.bpf.c $(BPF_HDRS) vmlinux/vmlinux.h | $(BUILD)/bpf-scalar
	$(CLANG) $(BPF_CFLAGS) -DCGWARD_SCALAR_WALK_ARGS -c $< -o $@

# One object from every concern's file: the static linker merges the __weak maps.
$(BUILD)/cgward.bpf.o: $(BPF_OBJS)
	$(BPFTOOL) gen object $@ $^

$(BUILD)/cgward_scalar.bpf.o: $(BPF_SCALAR_OBJS)
	$(BPFTOOL) gen object $@ $^

$(BUILD)/cgward.skel.h: $(BUILD)/cgward.bpf.o
	$(BPFTOOL) gen skeleton $< name cgward_bpf > $@

# Only its bytes are used: the programs and maps have the names of cgward.skel.h's.
$(BUILD)/cgward_scalar.skel.h: $(BUILD)/cgward_scalar.bpf.o
	$(BPFTOOL) gen skeleton $< name cgward_scalar_bpf > $@

# The objects' identity, which a pinned plane must match to be adopted: computed
# here once, not by every cgward exec.
$(BUILD)/cgward_object.h: $(BUILD)/cgward.bpf.o $(BUILD)/cgward_scalar.bpf.o
	echo "#define CGWARD_OBJECT_HASH 0x$$(cat $^ | sha256sum | cut -c1-16)ULL" > $@

# A pattern rule with two targets: one protoc-c run makes both. The files are
# named by an explicit rule too: made only by pattern rules, they would be
# intermediate files, deleted after each build.
$(BUILD)/%.pb-c.c $(BUILD)/%.pb-c.h: user/%.proto
	@mkdir -p $(@D)
	protoc-c --proto_path=$(<D) --c_out=$(@D) $<

$(PROTO_SRCS) $(PROTO_SRCS:.c=.h):

$(BUILD)/obj/%.o: user/%.c $(USER_HDRS) $(BUILD)/cgward.skel.h $(BUILD)/cgward_scalar.skel.h \
	$(BUILD)/cgward_object.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/obj-asan/%.o: user/%.c $(USER_HDRS) $(BUILD)/cgward.skel.h $(BUILD)/cgward_scalar.skel.h \
	$(BUILD)/cgward_object.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -O1 $(SANITIZE) -c $< -o $@

# Archives, so that a unit test links only the modules it calls.
$(BUILD)/libcgward.a: $(patsubst user/%.c,$(BUILD)/obj/%.o,$(USER_LIB_SRCS)) \
	$(addprefix $(BUILD)/obj/,$(PROTO_OBJS))
	rm -f $@ && ar rcs $@ $^

$(BUILD)/libcgward-asan.a: $(patsubst user/%.c,$(BUILD)/obj-asan/%.o,$(USER_LIB_SRCS)) \
	$(addprefix $(BUILD)/obj-asan/,$(PROTO_OBJS))
	rm -f $@ && ar rcs $@ $^

# The generated C, compiled as the library's own sources are in each build.
$(addprefix $(BUILD)/obj/,$(PROTO_OBJS)): $(BUILD)/obj/%.o: $(BUILD)/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

$(addprefix $(BUILD)/obj-asan/,$(PROTO_OBJS)): $(BUILD)/obj-asan/%.o: $(BUILD)/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -O1 $(SANITIZE) -c $< -o $@

$(addprefix $(BUILD)/obj-fuzz/,$(PROTO_OBJS)): $(BUILD)/obj-fuzz/%.o: $(BUILD)/%.c
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

# Static: cgward exec starts hundreds of times a minute, and resolving six shared
# libraries took as long as the rest of its start-up (measured under emulation).
$(BUILD)/cgward: $(BUILD)/obj/cmd/main.o $(BUILD)/libcgward.a
	$(CC) $(CFLAGS) -static $^ -o $@ $(LDLIBS)

# The same program linked dynamically, for valgrind: it cannot replace malloc in a static binary.
$(BUILD)/cgward-dynamic: $(BUILD)/obj/cmd/main.o $(BUILD)/libcgward.a
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

$(BUILD)/cgward-asan: $(BUILD)/obj-asan/cmd/main.o $(BUILD)/libcgward-asan.a
	$(CC) $(CFLAGS) -O1 $(SANITIZE) $^ -o $@ $(LDLIBS)

$(BUILD)/unit/%: tests/unit/%.c $(BUILD)/libcgward.a | $(BUILD)/unit
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS) -lcmocka

$(BUILD)/unit-asan/%: tests/unit/%.c $(BUILD)/libcgward-asan.a | $(BUILD)/unit-asan
	$(CC) $(CFLAGS) -O1 $(SANITIZE) $^ -o $@ $(LDLIBS) -lcmocka

$(BUILD)/obj-fuzz/%.o: user/%.c $(USER_HDRS)
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(BUILD)/libcgward-fuzz.a: $(patsubst user/%.c,$(BUILD)/obj-fuzz/%.o,$(FUZZ_LIB_SRCS)) \
	$(addprefix $(BUILD)/obj-fuzz/,$(PROTO_OBJS))
	rm -f $@ && ar rcs $@ $^

$(BUILD)/fuzz/%: tests/fuzz/%.c $(BUILD)/libcgward-fuzz.a | $(BUILD)/fuzz
	$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer $^ -o $@ $(LDLIBS)

$(BUILD) $(BUILD)/bpf $(BUILD)/bpf-scalar $(BUILD)/unit $(BUILD)/unit-asan $(BUILD)/fuzz:
	mkdir -p $@

test-unit: $(UNIT_BINS)
	@set -e; for t in $^; do echo "== $$t"; $$t; done

test-unit-asan: $(ASAN_BINS)
	@set -e; for t in $^; do echo "== $$t (ASan+UBSan)"; $$t; done

# Fuzzes in a scratch copy of each corpus, so new inputs stay out of the repo;
# crashes land in $(BUILD)/fuzz/artifacts/<name>/ (add them to the corpus once fixed).
fuzz: $(FUZZ_BINS)
	@set -e; for t in $(FUZZ_NAMES); do \
		work=$(BUILD)/fuzz/corpus/$$t; arts=$(BUILD)/fuzz/artifacts/$$t; \
		mkdir -p $$work $$arts; \
		if [ -d tests/fuzz/corpus/$$t ]; then cp -R tests/fuzz/corpus/$$t/. $$work/; fi; \
		echo "== fuzz_$$t for $(FUZZ_SECONDS)s over $$work"; \
		$(BUILD)/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
			-artifact_prefix=$$arts/ $$work; \
	done

# Runs each target once over every committed corpus file: no fuzzing, fails on a crash.
fuzz-regress: $(FUZZ_BINS)
	@set -e; for t in $(FUZZ_NAMES); do \
		files=$$(find tests/fuzz/corpus/$$t -type f 2>/dev/null | sort); \
		if [ -z "$$files" ]; then echo "fuzz_$$t: no corpus in tests/fuzz/corpus/$$t"; exit 1; fi; \
		echo "== fuzz_$$t over tests/fuzz/corpus/$$t"; \
		$(BUILD)/fuzz/fuzz_$$t $$files; \
	done

# One system call per run, for the tests to see the kernel's own answer.
TEST_TOOLS := $(BUILD)/fsop $(BUILD)/hatchop $(BUILD)/writeloop $(BUILD)/other/cgward \
	$(BUILD)/unmigratable/cgward $(BUILD)/relayout/cgward

# Another build of the same sources, whose BPF object differs (its fast walk's
# steps) and whose map layout does not: t_plane.sh upgrades a plane to it in place.
$(BUILD)/other/cgward: FORCE
	$(MAKE) --no-print-directory BUILD=$(BUILD)/other BPF_DEFINES=-DFAST_WALK_STEPS=24 all

# A build of a map layout that reads no other (as if a map had changed in a
# way it cannot migrate): t_plane.sh checks that it refuses the plane, and is
# refused by it, with nothing detached.
$(BUILD)/unmigratable/cgward: FORCE
	$(MAKE) --no-print-directory BUILD=$(BUILD)/unmigratable \
		ABI_DEFINES='-DCGWARD_ABI_VERSION=1000 -DCGWARD_ABI_UPGRADES_FROM=1000' all

# A build whose map layout and programs changed in a way it migrates
# (cgward_abi.h's CGWARD_TEST_RELAYOUT): t_plane.sh migrates a plane of this
# build to it under load.
$(BUILD)/relayout/cgward: FORCE
	$(MAKE) --no-print-directory BUILD=$(BUILD)/relayout ABI_DEFINES=-DCGWARD_TEST_RELAYOUT all

.PHONY: FORCE
FORCE:

$(BUILD)/fsop: tests/integration/fsop.c | $(BUILD)
	$(CC) $(CFLAGS) $< -o $@

$(BUILD)/writeloop: tests/integration/writeloop.c | $(BUILD)
	$(CC) $(CFLAGS) $< -o $@

$(BUILD)/hatchop: tests/integration/hatchop.c | $(BUILD)
	$(CC) $(CFLAGS) $< -o $@

test-integration: all $(BUILD)/cgward-asan $(BUILD)/cgward-dynamic $(TEST_TOOLS)
	tests/integration/run
	tests/integration/run-asan

# The guest shares this tree: build here, run the suite there (t_package.sh installs the .deb).
test-vm: all $(BUILD)/cgward-asan $(BUILD)/cgward-dynamic $(TEST_TOOLS) $(DEB)
	tests/vm/selftest
	tests/vm/run --timeout 2400 -- tests/integration/run
	tests/vm/run --timeout 1200 -- tests/integration/run-asan

# Bullseye's 5.10 and trixie's 6.12, unpacked into build/kernels/ (not installed),
# beside the installed 6.1 (linux-image-amd64, in DEB_TEST_PACKAGES).
deps-kernels:
	tests/vm/fetch-kernels

test-kernels: all $(BUILD)/cgward-dynamic $(TEST_TOOLS) $(DEB)
	tests/vm/kernels

# What make test runs in the VM: the suite on every kernel, the ASan subset on the default one.
test-vm-kernels: all $(BUILD)/cgward-dynamic $(TEST_TOOLS) $(DEB)
	tests/vm/selftest
	tests/vm/kernels

test-vm-asan: all $(BUILD)/cgward-asan $(TEST_TOOLS)
	tests/vm/run --timeout 600 -- tests/integration/run-asan

# Debian's containerd and runc in the VM, pods made through CRI by tests/kubernetes/cri.mjs
# (npm's @grpc/grpc-js), confined by the agent.
test-kubernetes: all $(BUILD)/other/cgward
	tests/kubernetes/run

# The Python client: its arguments and its handling of cgward exec (a stand-in
# for it) here; pip installs a copy (a build writes into its source tree) into a
# venv; then real runs in the VM, as root and as an ordinary user through an
# agent (clients/python/tests/run_in_vm.sh). Debian's python3, which its
# python3-* packages serve (another python3 may come first on PATH). pytest
# exits 5 when no test is selected, which fails the target as any error does.
PYTHON3 := /usr/bin/python3
PYTEST  := PYTHONDONTWRITEBYTECODE=1 $(PYTHON3) -m pytest -p no:cacheprovider
test-python: all
	cd clients/python && $(PYTEST) -m 'not kernel' tests
	rm -rf $(BUILD)/python && mkdir -p $(BUILD)/python && cp -R clients/python $(BUILD)/python/src
	$(PYTHON3) -m venv --system-site-packages $(BUILD)/python/venv
	$(BUILD)/python/venv/bin/pip install -q --no-build-isolation --no-index $(BUILD)/python/src
	cd / && $(abspath $(BUILD))/python/venv/bin/python -c \
		'import cgward, sys; assert cgward.__file__.startswith(sys.prefix), cgward.__file__'
	tests/vm/run --timeout 1500 -- env CGWARD=$(abspath $(BUILD)/cgward) \
		clients/python/tests/run_in_vm.sh

# 256 execs, each with its own process, loop and ring buffer: more than the default 2 GiB.
test-stress: all
	tests/vm/run --memory 4096 --timeout 2400 -- tests/stress/run

# valgrind over the policy checker: the examples that validate on this host, and
# the invalid fixtures (exit 2, and no leak on the error paths either).
test-leaks: $(BUILD)/cgward-dynamic
	@set -e; for f in policy/examples/*.yaml deploy/policy.yaml; do \
		if $(BUILD)/cgward-dynamic policy check --quiet $$f 2>/dev/null; then \
			tests/leakcheck $(BUILD)/cgward-dynamic policy check $$f; fi; \
	done
	@for f in tests/unit/policy/*.yaml; do \
		tests/leakcheck $(BUILD)/cgward-dynamic policy check --quiet $$f 2>/dev/null; \
		[ $$? -ne 99 ] || { echo "leak or memory error: policy check $$f"; exit 1; }; \
	done; echo "test-leaks: policy check over $$(ls tests/unit/policy/*.yaml | wc -l) fixtures: no leak"

# After the kernels, the other VM suites as many at once as the kernels' VMs ran
# (a guest under emulation is one host thread), each one's output whole when it ends.
test: check-format build-bench test-unit test-unit-asan fuzz-regress test-leaks test-deploy test-man \
	test-deb test-reproducible test-vm-kernels
	$(MAKE) -j$$(nproc) --output-sync=target test-vm-asan test-kubernetes test-python

demo: all
	tests/demo

BENCH_BINS := $(BUILD)/bench/openloop $(BUILD)/bench/spawntime $(BUILD)/bench/policy_scale \
	$(BUILD)/bench/attach $(BUILD)/bench/floor.bpf.o

$(BUILD)/bench/openloop $(BUILD)/bench/spawntime: $(BUILD)/bench/%: tests/bench/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< -o $@

$(BUILD)/bench/policy_scale: tests/bench/policy_scale.c $(BUILD)/libcgward.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

$(BUILD)/bench/attach: tests/bench/attach.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< -o $@ -lbpf

$(BUILD)/bench/floor.bpf.o: tests/bench/floor.bpf.c
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# zlib's upstream tree from the Debian mirror apt uses, for the bench's build
# under learnt read roots; fetched once, by make bench only.
$(BUILD)/bench/zlib/zlib.tar.gz:
	tests/bench/fetch-zlib $(@D)

# Overhead figures as ratios, in tests/vm/run unless this kernel can enforce; not a test.
bench: all $(BENCH_BINS) $(BUILD)/bench/zlib/zlib.tar.gz
	tests/bench/run

# make test builds the benchmarks without running them, so that they cannot rot unseen.
build-bench: $(BENCH_BINS)

format:
	clang-format -i $$(git ls-files '*.c' '*.h' | grep -v '^vmlinux/')

# The static checks: clang-format, and user/'s include rules (tests/layering).
check-format:
	@bad=$$(for f in $$(git ls-files '*.c' '*.h' | grep -v '^vmlinux/'); do \
		clang-format --dry-run -Werror $$f >/dev/null 2>&1 || echo $$f; done); \
	if [ -n "$$bad" ]; then echo "not clang-formatted: $$bad"; exit 1; fi
	@tests/layering

clean:
	rm -rf $(BUILD)
