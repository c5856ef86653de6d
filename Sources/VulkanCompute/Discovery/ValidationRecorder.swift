import Foundation
import Locking

/// Collects the messages of the Khronos validation layer (warnings and errors)
/// delivered through a `VK_EXT_debug_utils` messenger.
///
/// Validation is off in production; it is switched on by
/// `KILN_VULKAN_VALIDATION=1` (messages go to standard error) or by tests,
/// which hold the recorder past the instance's destruction and fail on any
/// message.
package final class ValidationRecorder: Sendable {
    /// One message of the validation layer.
    package struct Message: Sendable, CustomStringConvertible {
        /// "error" or "warning".
        package let severity: String
        /// The layer's message identifier, e.g. `VUID-vkCmdDispatch-…`.
        package let identifier: String
        /// The full text.
        package let text: String

        package var description: String { "[\(severity)] \(identifier): \(text)" }
    }

    private let messages = Locked<[Message]>([])
    private let echo: Bool

    /// A recorder; with `echo`, each message is also written to standard error.
    package init(echo: Bool = false) {
        self.echo = echo
    }

    /// Every message recorded so far.
    package var recorded: [Message] { messages.withLock { $0 } }

    /// Called by the messenger callback, possibly from several threads.
    func record(_ message: Message) {
        messages.withLock { $0.append(message) }
        if echo {
            FileHandle.standardError.write(Data("kiln: Vulkan validation \(message)\n".utf8))
        }
    }
}
