// A small program the lifecycle tests start and send signals to (see Probe).
import Foundation

await Probe(options: ProbeOptions(CommandLine.arguments)).run()
