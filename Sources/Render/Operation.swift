/// One rendering operation of SPEC §4.2, as a value: what it computes is
/// defined once; where it runs (CPU or Vulkan) is the backend's business.
public enum Operation: Sendable, Equatable {
}
