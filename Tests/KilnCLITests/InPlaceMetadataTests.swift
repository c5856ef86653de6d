import Foundation
import KilnTestSupport
import Testing

/// `--in-place` replaces an input's content, not what the file is to its user:
/// its mode, owner and group, and its extended attributes stay as they were.
/// (Tests run as root, so every owner and group can be given.)
@Suite struct InPlaceMetadataTests {
    private typealias SetXattr = @convention(c) (UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafeRawPointer?, Int, Int32) -> Int32
    private typealias GetXattr = @convention(c) (UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafeMutableRawPointer?, Int) -> Int
    // <sys/xattr.h> is not in Swift's Glibc module: the calls are looked up as kiln does.
    private let setxattr = dlsym(nil, "setxattr").map { unsafeBitCast($0, to: SetXattr.self) }!
    private let getxattr = dlsym(nil, "getxattr").map { unsafeBitCast($0, to: GetXattr.self) }!

    /// Sets the extended attribute `name` of `path`; returns whether it was set (else `errno` says why).
    private func set(_ name: String, _ value: String, on path: String) -> Bool {
        Array(value.utf8).withUnsafeBytes { setxattr(path, name, $0.baseAddress, $0.count, 0) } == 0
    }

    /// The extended attribute `name` of `path`, or nil.
    private func get(_ name: String, of path: String) -> String? {
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = buffer.withUnsafeMutableBytes { getxattr(path, name, $0.baseAddress, $0.count) }
        return n < 0 ? nil : String(decoding: buffer[..<n], as: UTF8.self)
    }

    private func attributes(_ path: String) -> stat {
        var info = stat()
        #expect(stat(path, &info) == 0, "\(path)")
        return info
    }

    @Test func modeOwnerGroupAndExtendedAttributesAreKept() throws {
        let dir = try TemporaryDirectory()
        let names = Array(Paths.pngs(in: Paths.sampleData).prefix(3))
        try #require(names.count == 3)
        try FileManager.default.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)
        // Each: mode, owner, group. 0640 with another group; 0444 read-only; 0600 of another user.
        let wanted: [(mode: mode_t, uid: uid_t, gid: gid_t)] = [(0o600, 4321, 4321), (0o640, 0, 12345), (0o444, 0, 0)]
        for (name, want) in zip(names, wanted) {
            let path = dir.join("in/" + name)
            try FileManager.default.copyItem(atPath: Paths.sampleData + "/" + name, toPath: path)
            #expect(chown(path, want.uid, want.gid) == 0 && chmod(path, want.mode) == 0)
        }
        // Whether this file system keeps user.* attributes at all (tmpfs before Linux 6.6 does not).
        let xattrs = set("user.kiln.test", "kept: " + names[0], on: dir.join("in/" + names[0]))
        let unsupported = xattrs ? nil : String(cString: strerror(errno))
        for name in names.dropFirst() where xattrs { #expect(set("user.kiln.test", "kept: " + name, on: dir.join("in/" + name))) }
        let before = names.map { try? Data(contentsOf: URL(fileURLWithPath: dir.join("in/" + $0))) }

        let r = try startKiln(["export", "--in-place", "in", "--progress", "json", "--resize", "24x24"],
                              directory: dir.path).wait()
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(Events(r.stdoutLines).files("written").count == names.count)
        for (index, (name, want)) in zip(names, wanted).enumerated() {
            let path = dir.join("in/" + name)
            let info = attributes(path)
            #expect(info.st_mode & 0o7777 == want.mode, "\(name): mode \(String(info.st_mode & 0o7777, radix: 8))")
            #expect(info.st_uid == want.uid && info.st_gid == want.gid, "\(name): \(info.st_uid):\(info.st_gid)")
            #expect((try? Data(contentsOf: URL(fileURLWithPath: path))) != before[index], "\(name) was replaced")
            if xattrs {
                #expect(get("user.kiln.test", of: path) == "kept: " + name, "\(name)'s user.* attribute")
            }
        }
        // Stated, not silent: the attribute check needs a file system that keeps them.
        if let unsupported { print("InPlaceMetadataTests: user.* attributes not checked: \(unsupported) on \(dir.path)") }
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.join("in")).filter { !names.contains($0) }
        #expect(left == [], "a clean in-place run leaves no temporary file")
    }
}
