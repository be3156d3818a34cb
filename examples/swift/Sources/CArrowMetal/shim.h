/* The C module Swift imports: the whole public interface of ArrowMetal. The
 * include path comes from pkg-config (arrowmetal.pc) or -Xcc -I<includedir>. */
#include <arrowmetal.h>
