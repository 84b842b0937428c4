// SPDX-License-Identifier: GPL-2.0
/*
 * iprof: instruction profile of a QEMU TCG guest kernel (scripts/iprof.sh).
 *
 * Counts how often every translated block at a kernel address runs, with
 * its instruction count and a classification of its instructions (calls,
 * returns, lock-prefixed, pause...). Userspace is one total. Snapshots of
 * all counts are written when the guest executes the marker NOP (see
 * tests/iprof_mark.h) and at exit: OUT.0, OUT.1, ... and OUT.end. The
 * difference of two snapshots is exactly what ran between the markers, on
 * all vCPUs. A kernel block's count is an atomic add in a callback: with
 * MTTCG the vCPU threads run the same translated blocks at once, and the
 * plugin API's inline add (not atomic) loses increments then (20 % of
 * memcpy's loop when client and server copied at once, 1 MiB ping-pong).
 * Under TCG, time follows executed blocks and instructions far more than
 * on hardware, and unlike time they do not depend on the load of the
 * host: this is the measure to compare code changes with.
 *
 * Declarations of the QEMU plugin API, version 1 (QEMU 7.2); loaded with
 * -plugin file=libiprof.so,out=PATH.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
typedef struct {
	const char *target_name;
	struct { int min, cur; } version;
	bool system_emulation;
	union { struct { int smp_vcpus, max_vcpus; } system; };
} qemu_info_t;
typedef void (*tb_trans_cb)(qemu_plugin_id_t, struct qemu_plugin_tb *);
typedef void (*udata_cb)(qemu_plugin_id_t, void *);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t, tb_trans_cb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *, int op,
					      void *ptr, uint64_t imm);
typedef void (*vcpu_udata_cb)(unsigned int vcpu_index, void *userdata);
enum { CB_NO_REGS };
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *,
					  vcpu_udata_cb cb, int flags,
					  void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *);
struct qemu_plugin_insn;
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *, size_t);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *);

enum { C_RET, C_CALL, C_ICALL, C_IJMP, C_LOCK, C_PAUSE, C_RDTSC, C_CLI, C_STI,
       C_POPF, C_PUSHF, C_CPUID, C_IRET, C_MSR, C_REP, C_XCHG, NCLS };
static const char *cls_name[NCLS] = { "ret", "call", "icall", "ijmp", "lock",
	"pause", "rdtsc", "cli", "sti", "popf", "pushf", "cpuid", "iret", "msr",
	"rep", "xchg" };

static void classify(const uint8_t *p, size_t n, uint8_t *cls)
{
	size_t i = 0;
	int lock = 0, rep = 0;

	while (i < n) {
		uint8_t b = p[i];
		if (b == 0xf0) { lock = 1; i++; continue; }
		if (b == 0xf3 || b == 0xf2) { rep = 1; i++; continue; }
		if (b == 0x66 || b == 0x67 || b == 0x2e || b == 0x36 ||
		    b == 0x3e || b == 0x26 || b == 0x64 || b == 0x65) { i++; continue; }
		break;
	}
	if (i < n && (p[i] & 0xf0) == 0x40)
		i++;
	if (i >= n)
		return;
	uint8_t op = p[i];
	if (lock) cls[C_LOCK]++;
	if (op == 0xc3 || op == 0xc2) cls[C_RET]++;
	else if (op == 0xe8) cls[C_CALL]++;
	else if (op == 0xff && i + 1 < n) {
		int reg = (p[i + 1] >> 3) & 7;
		if (reg == 2) cls[C_ICALL]++;
		if (reg == 4) cls[C_IJMP]++;
	} else if (op == 0x90 && rep) cls[C_PAUSE]++;
	else if (op == 0xfa) cls[C_CLI]++;
	else if (op == 0xfb) cls[C_STI]++;
	else if (op == 0x9d) cls[C_POPF]++;
	else if (op == 0x9c) cls[C_PUSHF]++;
	else if (op == 0xcf) cls[C_IRET]++;
	else if ((op >= 0xa4 && op <= 0xa7) || (op >= 0xaa && op <= 0xaf)) { if (rep) cls[C_REP]++; }
	else if (op == 0x87 || (op >= 0x91 && op <= 0x97)) cls[C_XCHG]++;
	else if (op == 0x0f && i + 1 < n) {
		uint8_t o2 = p[i + 1];
		if (o2 == 0x31) cls[C_RDTSC]++;
		else if (o2 == 0xa2) cls[C_CPUID]++;
		else if (o2 == 0x30 || o2 == 0x32) cls[C_MSR]++;
	}
}
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t, udata_cb, void *);
typedef void (*vcpu_udata_cb)(unsigned int vcpu_index, void *userdata);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *,
					    vcpu_udata_cb, int flags,
					    void *userdata);

/* The marker: nopl 0x49464b(%rax,%rax,1), "KFI" in its displacement. */
static const uint8_t mark[8] = { 0x0f, 0x1f, 0x84, 0x00, 0x4b, 0x46, 0x49, 0x00 };

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

struct blk {
	uint64_t vaddr, count;
	uint32_t n;
	uint8_t cls[NCLS];
	struct blk *next;
};
static struct blk *head;
static uint64_t user_insns;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const char *out = "iprof.out";

static void marked(unsigned int vcpu, void *p);

/* A kernel block ran (on any vCPU: atomic, see above). */
static void ran(unsigned int vcpu, void *p)
{
	struct blk *b = p;

	__atomic_fetch_add(&b->count, 1, __ATOMIC_RELAXED);
}

static void trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t va = qemu_plugin_tb_vaddr(tb);
	size_t n = qemu_plugin_tb_n_insns(tb);

	if (va < 0xffff800000000000ull) {
		qemu_plugin_register_vcpu_tb_exec_inline(tb, 0, &user_insns, n);
		return;
	}
	struct blk *b = calloc(1, sizeof(*b));

	if (!b)
		return;
	b->vaddr = va;
	b->n = n;
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *in = qemu_plugin_tb_get_insn(tb, i);
		const uint8_t *d = qemu_plugin_insn_data(in);
		size_t sz = qemu_plugin_insn_size(in);

		classify(d, sz, b->cls);
		if (sz == sizeof(mark) && !memcmp(d, mark, sizeof(mark)))
			qemu_plugin_register_vcpu_insn_exec_cb(in, marked, 0, NULL);
	}
	pthread_mutex_lock(&lock);
	b->next = head;
	head = b;
	pthread_mutex_unlock(&lock);
	qemu_plugin_register_vcpu_tb_exec_cb(tb, ran, CB_NO_REGS, b);
}

static unsigned int snap_seq;

/* Writes every block's counts to OUT.TAG. */
static void snapshot(const char *tag)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s.%s", out, tag);
	f = fopen(path, "w");
	if (!f)
		return;
	fprintf(f, "user %" PRIu64 "\n", user_insns);
	pthread_mutex_lock(&lock);
	for (struct blk *b = head; b; b = b->next) {
		uint64_t count = __atomic_load_n(&b->count, __ATOMIC_RELAXED);

		if (!count)
			continue;
		fprintf(f, "%" PRIx64 " %u %" PRIu64, b->vaddr, b->n, count);
		for (int c = 0; c < NCLS; c++)
			if (b->cls[c])
				fprintf(f, " %s=%u", cls_name[c], b->cls[c]);
		fprintf(f, "\n");
	}
	pthread_mutex_unlock(&lock);
	fclose(f);
}

static void marked(unsigned int vcpu, void *p)
{
	char tag[16];

	pthread_mutex_lock(&lock);
	snprintf(tag, sizeof(tag), "%u", snap_seq++);
	pthread_mutex_unlock(&lock);
	snapshot(tag);
}

static void done(qemu_plugin_id_t id, void *p)
{
	snapshot("end");
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			out = argv[i] + 4;
	qemu_plugin_register_vcpu_tb_trans_cb(id, trans);
	qemu_plugin_register_atexit_cb(id, done, NULL);
	return 0;
}
