/* bolt_coll.h — collective operations of the native API (included by bolt.h). */
#ifndef BOLT_COLL_H
#define BOLT_COLL_H
#endif
