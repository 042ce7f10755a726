/* samples/scen/libdlc_fill.c: a library dlopen_cycle.c loads only to move
 * the next library to another address: about libdlc.so's size, it takes the
 * hole in the address space that libdlc.so would have used. */

/* Something to export. */
int dlc_fill(int n)
{
	return n + 1;
}
