/* Installed setuid-root in the test image: prints the effective uid it actually runs with.
   Under no-new-privileges the setuid bit is ignored and it prints the caller's uid. */
#include <stdio.h>
#include <unistd.h>
int main(void) {
  printf("euid=%d\n", (int)geteuid());
  return 0;
}
