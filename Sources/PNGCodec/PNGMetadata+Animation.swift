extension PNGMetadata {
    /// Drops an APNG's animation control (acTL; the decoder never keeps fcTL
    /// or fdAT), saying so in `warnings`: Kiln exports the default image (the
    /// IDAT), which every PNG reader shows, and never an animation.
    mutating func dropAnimation() {
        guard let control = chunks.first(where: { $0.type == "acTL" }) else { return }
        chunks.removeAll { ["acTL", "fcTL", "fdAT"].contains($0.type) }
        // acTL's data: the frame count and the play count, 4 bytes each, big-endian.
        let frames = control.data.count == 8 ? control.data[0..<4].reduce(0) { $0 << 8 | Int($1) } : nil
        let animation = frames.map { "the animation (APNG, \($0) frame\($0 == 1 ? "" : "s"))" } ?? "the animation (APNG)"
        warnings.append("acTL: \(animation) is dropped; the default image is exported")
        dropsAnimation = true
    }
}
