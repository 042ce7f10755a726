/* tests/fuzz/replay.c: run a harness over its corpus without libFuzzer (and
 * without clang): each FILE argument, or every file of a DIR argument, is
 * passed to LLVMFuzzerTestOneInput once.  A crash input that comes back
 * crashes this (and, built with sanitizers, so does a memory error). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/fuzz/fuzz.h"

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL;
	long size;

	if (!f || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0) {
		fprintf(stderr, "replay: cannot read %s\n", path);
		if (f)
			fclose(f);
		return -1;
	}
	/* Exactly SIZE bytes on the heap, as libFuzzer passes them. */
	data = malloc(size ? (size_t)size : 1);
	if (!data || fread(data, 1, (size_t)size, f) != (size_t)size) {
		fprintf(stderr, "replay: cannot read %s\n", path);
		free(data);
		fclose(f);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(data, (size_t)size);
	free(data);
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int main(int argc, char **argv)
{
	int files = 0, bad = 0;

	for (int i = 1; i < argc; i++) {
		struct dirent **ents;
		struct stat st;
		int n;

		if (stat(argv[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
			bad += run_file(argv[i]) < 0;
			files++;
			continue;
		}
		n = scandir(argv[i], &ents, NULL, by_name);
		if (n < 0) {
			fprintf(stderr, "replay: cannot read %s\n", argv[i]);
			bad++;
			continue;
		}
		for (int k = 0; k < n; k++) {
			char path[4096];

			if (ents[k]->d_name[0] != '.') {
				snprintf(path, sizeof(path), "%s/%s", argv[i], ents[k]->d_name);
				bad += run_file(path) < 0;
				files++;
			}
			free(ents[k]);
		}
		free(ents);
	}
	printf("replay %s: %d inputs%s\n", argv[0], files, bad ? ", some unreadable" : "");
	return bad ? 1 : 0;
}
