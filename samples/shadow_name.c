/* samples/shadow_name.c: a global variable named as a libc function,
 * gnu_get_libc_version, in a program that calls that function through
 * dlsym(RTLD_NEXT): `ptap record -e gnu_get_libc_version` is to probe
 * libc's function, the program having a variable of that name and no
 * function.  Prints libc's version and the variable's value (7). */
#include <dlfcn.h>
#include <stdio.h>

int gnu_get_libc_version = 7;

int main(void)
{
	const char *(*fn)(void) = (const char *(*)(void))dlsym(RTLD_NEXT, "gnu_get_libc_version");

	if (!fn)
		return 1;
	printf("%s %d\n", fn(), gnu_get_libc_version);
	return 0;
}
