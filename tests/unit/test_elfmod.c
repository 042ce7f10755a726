/* tests/unit/test_elfmod.c: dwarf/elfmod.c on fixtures built at test time
 * with gcc and strip, cross-checked against what nm and readelf print, and
 * on the system's libc. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "dwarf/elfmod.h"
#include "probes/err.h"
#include "probes/log.h"

#define LIBC	"/lib/x86_64-linux-gnu/libc.so.6"

/* Two files, each with a static dup_fn, so the name is in .symtab twice. */
static const char src_a[] =
	"int target_obj = 42;\n"
	"int target_bss[64];\n"
	"static int __attribute__((noinline)) dup_fn(int x) { return x * 3 + target_obj; }\n"
	"int __attribute__((noinline)) target_fn(int x) { return dup_fn(x) + target_bss[x & 63]; }\n"
	"int __attribute__((noinline)) target_fn_long_name(int x) { return x - 1; }\n"
	"int b_entry(int);\n"
	"int main(int argc, char **argv)\n"
	"{ (void)argv; return target_fn(argc) + b_entry(argc) + target_fn_long_name(argc); }\n";
static const char src_b[] =
	"static int __attribute__((noinline)) dup_fn(int x) { return x * 5; }\n"
	"int b_entry(int x) { return dup_fn(x); }\n";

static char fx_dir[64];

static void fx_path(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", fx_dir, name);
}

static void write_file(const char *name, const char *text)
{
	char path[128];
	FILE *f;

	fx_path(path, sizeof(path), name);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	cr_assert(eq(int, fclose(f), 0));
}

static void run(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;
	int ret;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	ret = system(cmd);
	cr_assert(eq(int, ret, 0), "`%s` failed (%d)", cmd, ret);
}

static void fx_init(void)
{
	snprintf(fx_dir, sizeof(fx_dir), "/tmp/ptap-elfmod.XXXXXX");
	cr_assert_not_null(mkdtemp(fx_dir));
	write_file("a.c", src_a);
	write_file("b.c", src_b);
}

static void fx_fini(void)
{
	if (fx_dir[0])
		run("rm -rf '%s'", fx_dir);
}

TestSuite(elfmod, .init = fx_init, .fini = fx_fini);

/* Build fixture NAME once per test (each test runs in its own process). */
static const char *fixture(const char *name)
{
	static char path[8][128];
	static int built;
	static const struct {
		const char *name, *cmd;
	} recipes[] = {
		{ "pie", "gcc -O0 -fPIE -pie -rdynamic -Wl,--build-id -o pie a.c b.c" },
		{ "nopie", "gcc -O0 -fno-pie -no-pie -Wl,--build-id -o nopie a.c b.c" },
		{ "stripped", "gcc -O0 -fPIE -pie -rdynamic -Wl,--build-id -o pie a.c b.c "
			      "&& strip -o stripped pie" },
		{ "notelf", "cp a.c notelf" },
		{ "empty", ": > empty" },
		{ "object", "gcc -c -o object b.c" },
		{ "arm", "gcc -O0 -o arm b.c -nostartfiles -Wl,-e,b_entry && "
			 "printf '\\267\\000' | dd of=arm bs=1 seek=18 conv=notrunc 2>/dev/null" },
	};
	size_t i;

	for (i = 0; i < sizeof(recipes) / sizeof(recipes[0]); i++) {
		if (strcmp(recipes[i].name, name))
			continue;
		fx_path(path[i], sizeof(path[i]), name);
		if (!(built & (1 << i))) {
			run("cd '%s' && %s", fx_dir, recipes[i].cmd);
			built |= 1 << i;
		}
		return path[i];
	}
	cr_fatal("no fixture %s", name);
	return NULL;
}

static struct elfmod *open_ok(const char *path)
{
	struct ptap_err err = { .pos = -1 };
	struct elfmod *mod = NULL;
	int ret = elfmod__open(path, &mod, &err);

	cr_assert(eq(int, ret, 0), "open %s: %d %s", path, ret, err.msg);
	cr_assert_not_null(mod);
	return mod;
}

/* ---- what the binutils say ------------------------------------------------ */

struct nm_sym {
	uint64_t value, size;
	char type;
};

/*
 * The OCC-th (0-based) symbol NAME in `nm -S -p` (symbol table order) output,
 * of .dynsym with DYN; nm -D prints versions as NAME@VER / NAME@@VER.
 */
static bool nm_find(const char *path, bool dyn, const char *name, int occ, struct nm_sym *out)
{
	char cmd[256], line[512];
	FILE *p;
	bool found = false;

	snprintf(cmd, sizeof(cmd), "nm -S -p %s --defined-only '%s' 2>/dev/null", dyn ? "-D" : "", path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (!found && fgets(line, sizeof(line), p)) {
		char f[4][256];
		int n = sscanf(line, "%255s %255s %255s %255s", f[0], f[1], f[2], f[3]);
		const char *sym = n == 4 ? f[3] : f[2];

		if (n < 3 || strcmp(sym, name) || occ-- > 0)
			continue;
		out->value = strtoull(f[0], NULL, 16);
		out->size = n == 4 ? strtoull(f[1], NULL, 16) : 0;
		out->type = n == 4 ? f[2][0] : f[1][0];
		found = true;
	}
	while (fgets(line, sizeof(line), p))
		;
	pclose(p);
	return found;
}

static uint64_t nm_value(const char *path, bool dyn, const char *name)
{
	struct nm_sym s;

	cr_assert(nm_find(path, dyn, name, 0, &s), "nm: no %s in %s", name, path);
	return s.value;
}

/* File offset of VADDR by the PT_LOAD lines of `readelf -lW`. */
static bool readelf_offset(const char *path, uint64_t vaddr, uint64_t *off)
{
	char cmd[256], line[512];
	FILE *p;
	bool found = false;

	snprintf(cmd, sizeof(cmd), "readelf -lW '%s'", path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		unsigned long long o, va, pa, fsz, msz;

		if (sscanf(line, " LOAD 0x%llx 0x%llx 0x%llx 0x%llx 0x%llx", &o, &va, &pa, &fsz,
			   &msz) != 5)
			continue;
		if (!found && vaddr >= va && vaddr < va + msz) {
			*off = vaddr - va + o;
			found = true;
		}
	}
	pclose(p);
	return found;
}

/* The build-id as `readelf -n` prints it (hex). */
static void readelf_build_id(const char *path, char *hex, size_t size)
{
	char cmd[256], line[512];
	FILE *p;

	hex[0] = '\0';
	snprintf(cmd, sizeof(cmd), "readelf -n '%s'", path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		char *s = strstr(line, "Build ID: ");

		if (s && !hex[0]) {
			snprintf(hex, size, "%s", s + strlen("Build ID: "));
			hex[strcspn(hex, "\n")] = '\0';
		}
	}
	pclose(p);
	cr_assert(ne(int, hex[0], '\0'), "readelf -n %s: no build-id", path);
}

/* ---- symbols -------------------------------------------------------------- */

static void check_nm_agrees(const char *path, bool dyn)
{
	static const struct {
		const char *name;
		int type;
	} cases[] = {
		{ "target_fn", STT_FUNC },
		{ "target_fn_long_name", STT_FUNC },
		{ "main", STT_FUNC },
		{ "target_obj", STT_OBJECT },
		{ "target_bss", STT_OBJECT },
	};
	struct elfmod *mod = open_ok(path);
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct elfmod_sym sym = { 0 };
		struct nm_sym want;

		cr_assert(eq(int, nm_find(path, dyn, cases[i].name, 0, &want), true));
		cr_assert(eq(int, elfmod__find_sym(mod, cases[i].name, &sym), 0),
			  "%s", cases[i].name);
		cr_assert_str_eq(sym.name, cases[i].name);
		cr_assert(eq(u64, sym.vaddr, want.value), "%s: %#lx, nm says %#lx", cases[i].name,
			  (unsigned long)sym.vaddr, (unsigned long)want.value);
		cr_assert(eq(u64, sym.size, want.size), "%s", cases[i].name);
		cr_assert(eq(int, sym.type, cases[i].type), "%s", cases[i].name);
	}
	elfmod__close(mod);
}

Test(elfmod, pie_symbols_match_nm)
{
	const char *path = fixture("pie");
	struct elfmod *mod;
	struct stat st;

	check_nm_agrees(path, false);
	mod = open_ok(path);
	cr_assert(eq(int, elfmod__is_dyn(mod), true));
	cr_assert(eq(u64, elfmod__base_vaddr(mod), 0));
	cr_assert_str_eq(elfmod__path(mod), path);
	cr_assert(eq(int, stat(path, &st), 0));
	cr_assert(eq(ulong, elfmod__dev(mod), st.st_dev));
	cr_assert(eq(ulong, elfmod__ino(mod), st.st_ino));
	elfmod__close(mod);
}

Test(elfmod, nopie_symbols_match_nm)
{
	const char *path = fixture("nopie");
	struct elfmod *mod;
	struct elfmod_sym sym;

	check_nm_agrees(path, false);
	mod = open_ok(path);
	cr_assert(eq(int, elfmod__is_dyn(mod), false));
	cr_assert(eq(u64, elfmod__base_vaddr(mod), 0x400000));
	cr_assert(eq(int, elfmod__find_sym(mod, "target_fn", &sym), 0));
	cr_assert(gt(u64, sym.vaddr, 0x400000));
	elfmod__close(mod);
}

Test(elfmod, stripped_uses_dynsym)
{
	const char *path = fixture("stripped");
	struct elfmod *mod;
	struct elfmod_sym sym;
	uint64_t pie_fn = nm_value(fixture("pie"), false, "target_fn");

	/* strip left no .symtab: nm sees nothing, nm -D still does. */
	{
		struct nm_sym s;

		cr_assert(eq(int, nm_find(path, false, "target_fn", 0, &s), false));
	}
	check_nm_agrees(path, true);
	mod = open_ok(path);
	cr_assert(eq(int, elfmod__find_sym(mod, "target_fn", &sym), 0));
	cr_assert(eq(u64, sym.vaddr, pie_fn));
	/* Static functions are not exported: gone with .symtab. */
	cr_assert(eq(int, elfmod__find_sym(mod, "dup_fn", &sym), -ENOENT));
	cr_assert(eq(int, elfmod__find_sym(mod, "no_such_fn", &sym), -ENOENT));
	/* Undefined dynamic symbols (puts from libc) are skipped. */
	cr_assert(eq(int, elfmod__find_sym(mod, "__libc_start_main", &sym), -ENOENT));
	elfmod__close(mod);
}

/*
 * A .symtab whose header claims 2^62 bytes (more than the file): the module
 * still opens, with the .dynsym symbols (the count used to come from
 * sh_size and asked malloc for the impossible; found by tests/fuzz/fuzz_elf.c).
 */
Test(elfmod, huge_symtab_size_ignored)
{
	char path[128];
	struct elfmod_sym sym;
	struct elfmod *mod;
	Elf64_Ehdr eh;
	Elf64_Shdr sh;
	int fd, found = 0;

	fixture("pie");
	fx_path(path, sizeof(path), "hugesym");
	run("cp '%s/pie' '%s'", fx_dir, path);
	fd = open(path, O_RDWR);
	cr_assert(ge(int, fd, 0));
	cr_assert(eq(long, pread(fd, &eh, sizeof(eh), 0), (ssize_t)sizeof(eh)));
	for (int i = 0; i < eh.e_shnum; i++) {
		off_t off = (off_t)(eh.e_shoff + (uint64_t)i * eh.e_shentsize);

		cr_assert(eq(long, pread(fd, &sh, sizeof(sh), off), (ssize_t)sizeof(sh)));
		if (sh.sh_type != SHT_SYMTAB)
			continue;
		sh.sh_size = 1ull << 62;
		cr_assert(eq(long, pwrite(fd, &sh, sizeof(sh), off), (ssize_t)sizeof(sh)));
		found++;
	}
	close(fd);
	cr_assert(eq(int, found, 1));
	mod = open_ok(path);
	/* -rdynamic: .dynsym */
	cr_expect(eq(int, elfmod__find_sym(mod, "target_fn", &sym), 0));
	cr_expect(eq(u64, sym.vaddr, nm_value(fixture("pie"), false, "target_fn")));
	cr_expect(eq(int, elfmod__find_sym(mod, "dup_fn", &sym), -ENOENT));	/* .symtab only */
	elfmod__close(mod);
}

static char log_buf[1024];

static void capture_sink(enum log_level lvl, const char *fmt, va_list ap)
{
	size_t len = strlen(log_buf);

	(void)lvl;
	vsnprintf(log_buf + len, sizeof(log_buf) - len, fmt, ap);
}

Test(elfmod, duplicate_static_name_first_wins)
{
	const char *path = fixture("pie");
	struct nm_sym first, second;
	struct elfmod_sym sym;
	struct elfmod *mod = open_ok(path);

	/* nm -p lists .symtab in table order: a.c's dup_fn, then b.c's. */
	cr_assert(eq(int, nm_find(path, false, "dup_fn", 0, &first), true));
	cr_assert(eq(int, nm_find(path, false, "dup_fn", 1, &second), true));
	cr_assert(ne(u64, first.value, second.value));
	log_set_sink(capture_sink);
	log_set_level(LOG_DEBUG);
	cr_assert(eq(int, elfmod__find_sym(mod, "dup_fn", &sym), 0));
	log_set_sink(NULL);
	cr_assert(eq(u64, sym.vaddr, first.value));
	cr_assert(eq(int, sym.type, STT_FUNC));
	cr_assert_not_null(strstr(log_buf, "2 symbols named 'dup_fn'"), "log: %s", log_buf);
	/* Not logged for a unique name. */
	log_buf[0] = '\0';
	log_set_sink(capture_sink);
	cr_assert(eq(int, elfmod__find_sym(mod, "target_fn", &sym), 0));
	log_set_sink(NULL);
	cr_assert_str_eq(log_buf, "");
	elfmod__close(mod);
}

Test(elfmod, sym_at)
{
	const char *path = fixture("pie");
	struct elfmod *mod = open_ok(path);
	struct elfmod_sym fn, obj, sym;

	cr_assert(eq(int, elfmod__find_sym(mod, "target_fn", &fn), 0));
	cr_assert(gt(u64, fn.size, 1));
	cr_assert(eq(int, elfmod__sym_at(mod, fn.vaddr, &sym), 0));
	cr_assert_str_eq(sym.name, "target_fn");
	cr_assert(eq(int, elfmod__sym_at(mod, fn.vaddr + fn.size - 1, &sym), 0));
	cr_assert_str_eq(sym.name, "target_fn");
	cr_assert(eq(u64, sym.vaddr, fn.vaddr));
	if (elfmod__sym_at(mod, fn.vaddr + fn.size, &sym) == 0)
		cr_assert_str_neq(sym.name, "target_fn");
	/* Data is not a function. */
	cr_assert(eq(int, elfmod__find_sym(mod, "target_obj", &obj), 0));
	cr_assert(eq(int, elfmod__sym_at(mod, obj.vaddr, &sym), -ENOENT));
	cr_assert(eq(int, elfmod__sym_at(mod, 0, &sym), -ENOENT));
	cr_assert(eq(int, elfmod__sym_at(mod, UINT64_MAX, &sym), -ENOENT));
	/* Each static dup_fn is found at its own address. */
	{
		struct nm_sym second;

		cr_assert(eq(int, nm_find(path, false, "dup_fn", 1, &second), true));
		cr_assert(eq(int, elfmod__sym_at(mod, second.value + 1, &sym), 0));
		cr_assert_str_eq(sym.name, "dup_fn");
		cr_assert(eq(u64, sym.vaddr, second.value));
	}
	elfmod__close(mod);
}

/* ---- addresses ------------------------------------------------------------ */

static void check_offsets(const char *path)
{
	static const char *names[] = { "target_fn", "main", "target_obj", "target_bss" };
	struct elfmod *mod = open_ok(path);
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct elfmod_sym sym;
		uint64_t off = 0, want = 0, back = 0;

		cr_assert(eq(int, elfmod__find_sym(mod, names[i], &sym), 0));
		cr_assert(eq(int, readelf_offset(path, sym.vaddr, &want), true));
		cr_assert(eq(int, elfmod__vaddr_to_offset(mod, sym.vaddr, &off), 0));
		cr_assert(eq(u64, off, want), "%s %s: offset %#lx, readelf says %#lx", path,
			  names[i], (unsigned long)off, (unsigned long)want);
		if (strcmp(names[i], "target_bss")) {
			cr_assert(eq(int, elfmod__offset_to_vaddr(mod, off, &back), 0));
			cr_assert(eq(u64, back, sym.vaddr));
		}
	}
	/* Nothing is loaded above the image, nor below a non-PIE's base. */
	{
		uint64_t off;

		cr_assert(eq(int, elfmod__vaddr_to_offset(mod, UINT64_MAX - 0x100, &off), -ENOENT));
		if (elfmod__base_vaddr(mod))
			cr_assert(eq(int, elfmod__vaddr_to_offset(mod, elfmod__base_vaddr(mod) - 1,
								  &off), -ENOENT));
		cr_assert(eq(int, elfmod__offset_to_vaddr(mod, 1ULL << 40, &off), -ENOENT));
	}
	elfmod__close(mod);
}

Test(elfmod, offsets_match_readelf)
{
	check_offsets(fixture("pie"));
	check_offsets(fixture("nopie"));
}

Test(elfmod, read_matches_file_bytes)
{
	const char *path = fixture("nopie");
	struct elfmod *mod = open_ok(path);
	struct elfmod_sym fn, obj;
	uint8_t got[16], want[16];
	uint64_t off;
	int fd;

	cr_assert(eq(int, elfmod__find_sym(mod, "target_fn", &fn), 0));
	cr_assert(eq(int, elfmod__vaddr_to_offset(mod, fn.vaddr, &off), 0));
	cr_assert(eq(int, elfmod__read(mod, fn.vaddr, got, sizeof(got)), 0));
	fd = open(path, O_RDONLY);
	cr_assert(eq(long, pread(fd, want, sizeof(want), off), (ssize_t)sizeof(want)));
	cr_assert(eq(mem, ((struct cr_mem){ got, sizeof(got) }),
		     ((struct cr_mem){ want, sizeof(want) })));
	/* -fcf-protection: Debian's gcc starts functions with endbr64 (f3); else push %rbp. */
	cr_assert_not_null(memchr("\xf3\x55", got[0], 2), "first byte %#x", got[0]);

	/* target_obj = 42, little endian, in the data segment. */
	cr_assert(eq(int, elfmod__find_sym(mod, "target_obj", &obj), 0));
	cr_assert(eq(int, elfmod__read(mod, obj.vaddr, got, 4), 0));
	cr_assert(eq(uint, got[0] | got[1] << 8 | got[2] << 16 | (uint32_t)got[3] << 24, 42));
	/* .bss has no file bytes. */
	cr_assert(eq(int, elfmod__find_sym(mod, "target_bss", &obj), 0));
	cr_assert(eq(int, elfmod__read(mod, obj.vaddr, got, 4), -ENOENT));
	/* A read running off the end of the text segment. */
	cr_assert(eq(int, elfmod__read(mod, fn.vaddr, got, 1 << 20), -ENOENT));
	close(fd);
	elfmod__close(mod);
}

Test(elfmod, build_id_matches_readelf)
{
	static const char *names[] = { "pie", "nopie", "stripped" };
	char hex[128], pie_hex[128] = "";
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *path = fixture(names[i]);
		struct elfmod *mod = open_ok(path);
		const uint8_t *id = NULL;
		char got[128] = "";
		size_t len = 0, k;

		readelf_build_id(path, hex, sizeof(hex));
		cr_assert(eq(int, elfmod__build_id(mod, &id, &len), 0));
		cr_assert(eq(sz, len, 20));	/* ld's default: sha1 */
		for (k = 0; k < len; k++)
			snprintf(got + 2 * k, sizeof(got) - 2 * k, "%02x", id[k]);
		cr_assert(eq(str, got, hex), "%s", names[i]);
		if (!strcmp(names[i], "pie"))
			snprintf(pie_hex, sizeof(pie_hex), "%s", got);
		if (!strcmp(names[i], "stripped"))
			cr_assert_str_eq(got, pie_hex);
		elfmod__close(mod);
	}
}

Test(elfmod, build_id_absent)
{
	struct elfmod *mod;
	const uint8_t *id;
	size_t len;

	run("cd '%s' && gcc -O0 -Wl,--build-id=none -o noid b.c a.c", fx_dir);
	{
		char path[128];

		fx_path(path, sizeof(path), "noid");
		mod = open_ok(path);
	}
	cr_assert(eq(int, elfmod__build_id(mod, &id, &len), -ENOENT));
	elfmod__close(mod);
}

/* ---- nearest names -------------------------------------------------------- */

Test(elfmod, nearest_funcs_fixture)
{
	static const char *variants[] = { "pie", "stripped" };
	size_t v;

	for (v = 0; v < 2; v++) {
		struct elfmod *mod = open_ok(fixture(variants[v]));
		const char *names[5];
		int n, i, long_at = -1;

		n = elfmod__nearest_funcs(mod, "target_fm", names, 5);
		cr_assert(ge(int, n, 1));
		cr_assert(eq(str, (char *)names[0], "target_fn"), "%s", variants[v]);
		/* A prefix query: the close one first, the long one after it. */
		n = elfmod__nearest_funcs(mod, "target_f", names, 5);
		cr_assert(ge(int, n, 2));
		cr_assert_str_eq(names[0], "target_fn");
		for (i = 0; i < n; i++)
			if (!strcmp(names[i], "target_fn_long_name"))
				long_at = i;
		cr_assert(gt(int, long_at, 0));
		/* Objects are not functions. */
		n = elfmod__nearest_funcs(mod, "target_ob", names, 5);
		for (i = 0; i < n; i++)
			cr_assert_str_neq(names[i], "target_obj");
		cr_assert(eq(int, elfmod__nearest_funcs(mod, "target_fm", names, 0), 0));
		elfmod__close(mod);
	}
	{
		/* dup_fn is in .symtab twice but listed once. */
		struct elfmod *mod = open_ok(fixture("pie"));
		const char *names[5];
		int n, i, seen = 0;

		n = elfmod__nearest_funcs(mod, "dup_fm", names, 5);
		for (i = 0; i < n; i++)
			seen += !strcmp(names[i], "dup_fn");
		cr_assert(eq(int, seen, 1));
		cr_assert_str_eq(names[0], "dup_fn");
		n = elfmod__nearest_funcs(mod, "zzzzzzzzzzzzzzzz", names, 5);
		cr_assert(eq(int, n, 0));
		elfmod__close(mod);
	}
}

/* ---- errors --------------------------------------------------------------- */

Test(elfmod, open_errors)
{
	struct {
		const char *fixture;	/* NULL: a missing file */
		int ret;
		const char *msg;	/* after "PATH: " */
	} cases[] = {
		{ NULL, -ENOENT, "No such file or directory" },
		{ "notelf", -ENOEXEC, "not an ELF file" },
		{ "empty", -ENOEXEC, "not an ELF file" },
		{ "object", -ENOEXEC, "ELF type 1 is not an executable or shared library" },
		{ "arm", -ENOEXEC, "ELF for machine 183, not x86-64" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char missing[128], want[256];
		const char *path;
		struct ptap_err err = { .pos = 0 };
		struct elfmod *mod = (struct elfmod *)&err;
		int ret;

		fx_path(missing, sizeof(missing), "no such dir/nothing");
		path = cases[i].fixture ? fixture(cases[i].fixture) : missing;
		ret = elfmod__open(path, &mod, &err);
		cr_assert(eq(int, ret, cases[i].ret), "%s: %d", path, ret);
		cr_assert_null(mod);
		snprintf(want, sizeof(want), "%s: %s", path, cases[i].msg);
		cr_assert_str_eq(err.msg, want);
		cr_assert(eq(int, err.pos, -1));
	}
}

Test(elfmod, open_for_other_machine)
{
	struct ptap_err err;
	struct elfmod *mod;
	char want[256];

	cr_assert(eq(int, elfmod__open_machine(fixture("pie"), EM_AARCH64, &mod, &err), -ENOEXEC));
	snprintf(want, sizeof(want), "%s: ELF for machine 62, not aarch64", fixture("pie"));
	cr_assert_str_eq(err.msg, want);
	cr_assert(eq(int, elfmod__open_machine(fixture("arm"), EM_AARCH64, &mod, &err), 0));
	{
		struct elfmod_sym sym;

		cr_assert(eq(int, elfmod__find_sym(mod, "b_entry", &sym), 0));
		cr_assert(eq(u64, sym.vaddr, nm_value(fixture("arm"), false, "b_entry")));
	}
	elfmod__close(mod);
	elfmod__close(NULL);
	/* A NULL err is fine. */
	cr_assert(eq(int, elfmod__open(fixture("notelf"), &mod, NULL), -ENOEXEC));
}

/* ---- libc ----------------------------------------------------------------- */

Test(elfmod, libc_dynsym_versions)
{
	static const struct {
		const char *query;	/* what the user types */
		const char *nm;		/* the nm -D name with the address we want */
		int type;
	} cases[] = {
		{ "puts", "puts@@GLIBC_2.2.5", STT_FUNC },
		{ "puts@@GLIBC_2.2.5", "puts@@GLIBC_2.2.5", STT_FUNC },
		{ "puts@GLIBC_2.2.5", "puts@@GLIBC_2.2.5", STT_FUNC },
		/* two versions, two addresses; plain means the default one */
		{ "memcpy", "memcpy@@GLIBC_2.14", STT_GNU_IFUNC },
		{ "memcpy@@GLIBC_2.14", "memcpy@@GLIBC_2.14", STT_GNU_IFUNC },
		{ "memcpy@GLIBC_2.2.5", "memcpy@GLIBC_2.2.5", STT_FUNC },
		{ "realpath@GLIBC_2.2.5", "realpath@GLIBC_2.2.5", STT_FUNC },
		{ "realpath", "realpath@@GLIBC_2.3", STT_FUNC },
		{ "stdout", "stdout@@GLIBC_2.2.5", STT_OBJECT },
	};
	struct elfmod *mod = open_ok(LIBC);
	struct elfmod_sym sym;
	size_t i;

	cr_assert(eq(int, elfmod__is_dyn(mod), true));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t want = nm_value(LIBC, true, cases[i].nm);

		cr_assert(eq(int, elfmod__find_sym(mod, cases[i].query, &sym), 0),
			  "%s", cases[i].query);
		cr_assert(eq(u64, sym.vaddr, want), "%s: %#lx, nm says %#lx", cases[i].query,
			  (unsigned long)sym.vaddr, (unsigned long)want);
		cr_assert(eq(int, sym.type, cases[i].type),
			  "%s: type %d", cases[i].query, sym.type);
		cr_assert(eq(int, strncmp(sym.name, cases[i].query, strlen(sym.name)), 0), "%s: %s",
			  cases[i].query, sym.name);
		/* the whole query, or the part before its @VERSION */
		cr_assert(eq(sz, strcspn(cases[i].query, "@"), strlen(sym.name)), "%s: %s",
			  cases[i].query, sym.name);
	}
	cr_assert(ne(u64, nm_value(LIBC, true, "memcpy@@GLIBC_2.14"),
		     nm_value(LIBC, true, "memcpy@GLIBC_2.2.5")));
	cr_assert(eq(int, elfmod__find_sym(mod, "puts_", &sym), -ENOENT));
	cr_assert(eq(int, elfmod__find_sym(mod, "put", &sym), -ENOENT));
	/* An address inside puts resolves to puts or one of its aliases. */
	cr_assert(eq(int, elfmod__find_sym(mod, "puts", &sym), 0));
	{
		uint64_t at = sym.vaddr;

		cr_assert(eq(int, elfmod__sym_at(mod, at + 3, &sym), 0));
		cr_assert(eq(u64, sym.vaddr, at));
	}
	elfmod__close(mod);
}

Test(elfmod, libc_nearest_is_fast)
{
	struct elfmod *mod = open_ok(LIBC);
	const char *names[5];
	struct timespec t0, t1;
	double ms;
	int n, i, rounds = 20, found = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < rounds; i++)
		n = elfmod__nearest_funcs(mod, "putz", names, 5);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = ((t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6) / rounds;
	cr_assert(eq(int, n, 5));
	for (i = 0; i < n; i++)
		found += !strcmp(names[i], "puts");
	cr_assert(eq(int, found, 1), "putz -> %s %s %s %s %s", names[0], names[1], names[2],
		  names[3], names[4]);
	cr_log_info("nearest_funcs(libc, \"putz\"): %.3f ms per call", ms);
	/* A few thousand names, each rejected by length or a bounded DP. */
	cr_assert(lt(dbl, ms, 20.0), "%.3f ms per call", ms);
	/* "mallok" -> malloc first. */
	n = elfmod__nearest_funcs(mod, "mallok", names, 5);
	cr_assert(ge(int, n, 1));
	cr_assert_str_eq(names[0], "malloc");
	elfmod__close(mod);
}
