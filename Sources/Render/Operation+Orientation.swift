extension Operation {
    /// The operations that show an image stored with EXIF orientation
    /// `orientation` (TIFF tag 0x0112) as a viewer that honours the tag shows
    /// it (SPEC §4.1); none for 1 or a value outside 1–8.
    ///
    /// The EXIF definitions, as "what to do to the stored image to display it":
    /// 2 flip horizontal; 3 rotate 180°; 4 flip vertical; 5 transpose (mirror
    /// over the top-left–bottom-right diagonal); 6 rotate 90° clockwise (what
    /// a phone held upright writes); 7 transverse (mirror over the other
    /// diagonal); 8 rotate 270° clockwise (90° counter-clockwise). Transpose
    /// is a quarter turn clockwise then a horizontal flip, transverse three
    /// quarters then a horizontal flip: output (x, y) shows stored (y, x) and
    /// (w−1−y, h−1−x) respectively.
    public static func upright(exifOrientation orientation: Int) -> [Operation] {
        switch orientation {
        case 2: [.flip(Flip(axis: .h))]
        case 3: [.rotate(Rotate(degrees: 180))]
        case 4: [.flip(Flip(axis: .v))]
        case 5: [.rotate(Rotate(degrees: 90)), .flip(Flip(axis: .h))]
        case 6: [.rotate(Rotate(degrees: 90))]
        case 7: [.rotate(Rotate(degrees: 270)), .flip(Flip(axis: .h))]
        case 8: [.rotate(Rotate(degrees: 270))]
        default: []
        }
    }
}
