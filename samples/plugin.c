/* samples/plugin.c: a library that dlopen_host loads at run time. */
__attribute__((noinline)) int plugin_handle(const char *request, int n)
{
	int sum = n;

	while (*request)
		sum += *request++;
	return sum;
}
