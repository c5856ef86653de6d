/// A started task as the scheduler tracks it until it ends.
struct RunningTask {
    let task: ContinuedProcessingTask
    /// The Swift task running the launch handler; cancelled when the grace runs out.
    var handle: Task<Void, Never>?
    var watch: ProgressWatch

    var usesGPU: Bool { task.requiredResources.contains(.gpu) }
}
