#include "cvulkan.h"

#include <dlfcn.h>
#include <stdio.h>

PFN_vkGetInstanceProcAddr kiln_vk_open_loader(const char *path, char *error, size_t errorCapacity) {
    void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(error, errorCapacity, "%s", reason ? reason : "dlopen failed");
        return NULL;
    }
    /* dlsym returns void *; converting it to a function pointer is done here, in C. */
    PFN_vkGetInstanceProcAddr getInstanceProcAddr =
        (PFN_vkGetInstanceProcAddr)dlsym(library, "vkGetInstanceProcAddr");
    if (getInstanceProcAddr == NULL) {
        snprintf(error, errorCapacity, "%s has no vkGetInstanceProcAddr", path);
        dlclose(library);
        return NULL;
    }
    return getInstanceProcAddr;
}
