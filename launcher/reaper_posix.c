/* reaper_posix.c — no subreaper on this system (see reaper.h). */
#include "launcher/reaper.h"

void reaper_become(void)
{
}

void reaper_kill_all(void)
{
}
