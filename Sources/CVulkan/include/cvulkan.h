/*
 * Vulkan for Swift without linking libvulkan.
 *
 * VK_NO_PROTOTYPES must be defined here, in the header the module map imports:
 * a cSettings define does not reach Swift's importer. Every Vulkan entry point
 * is therefore resolved at run time (kiln_vk_open_loader, then
 * vkGetInstanceProcAddr / vkGetDeviceProcAddr), so `kiln` starts on machines
 * with no Vulkan at all.
 */
#ifndef KILN_CVULKAN_H
#define KILN_CVULKAN_H

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

/* The loader, opened with dlopen; NULL with a message in `error` when it
 * cannot be opened or lacks vkGetInstanceProcAddr. The library stays loaded
 * for the life of the process (unloading a loader with live layers is fragile). */
PFN_vkGetInstanceProcAddr kiln_vk_open_loader(const char *path, char *error, size_t errorCapacity);

/* Function-like macros are not imported into Swift: these wrap them. */
static inline uint32_t kiln_vk_make_api_version(uint32_t variant, uint32_t major, uint32_t minor, uint32_t patch) {
    return VK_MAKE_API_VERSION(variant, major, minor, patch);
}
static inline uint32_t kiln_vk_api_version_major(uint32_t version) { return VK_API_VERSION_MAJOR(version); }
static inline uint32_t kiln_vk_api_version_minor(uint32_t version) { return VK_API_VERSION_MINOR(version); }
static inline uint32_t kiln_vk_api_version_patch(uint32_t version) { return VK_API_VERSION_PATCH(version); }
static inline uint32_t kiln_vk_api_version_1_1(void) { return VK_API_VERSION_1_1; }
static inline uint32_t kiln_vk_queue_family_ignored(void) { return VK_QUEUE_FAMILY_IGNORED; }
static inline VkDeviceSize kiln_vk_whole_size(void) { return VK_WHOLE_SIZE; }

#endif
