import Foundation
public import Picture

/// Clips made by ffmpeg for tests.
public enum Clips {
    /// A clip of `seconds` at `fps` whose frames carry their own number: the top quarter is 16
    /// blocks across, block `b` white when bit `b` of the frame's number is set, else black (read
    /// back by ``frameNumber(gray:width:height:)``); the rest grey. Made once per path.
    /// `first`: the number of its first frame (two clips told apart by their numbers).
    public static func counter(
        _ path: String, seconds: Double, fps: Int = 30, size: String = "640x360", first: Int = 0
    ) throws {
        let expression = "if(lt(Y,H/4),255*mod(floor((N+\(first))/pow(2,floor(X*16/W))),2),128)"
        try ffmpeg([
            "-f", "lavfi", "-i", "color=c=gray:s=\(size):r=\(fps):d=\(seconds)",
            "-vf", "geq=lum='\(expression)':cb=128:cr=128,format=yuv420p",
            "-c:v", "mpeg4", "-q:v", "2", "-g", "\(fps)", path,
        ])
    }

    /// A plain test pattern of `seconds` (ffmpeg's testsrc).
    public static func pattern(_ path: String, seconds: Double, fps: Int = 25) throws {
        try ffmpeg(["-f", "lavfi", "-i", "testsrc=size=320x180:rate=\(fps):duration=\(seconds)", "-c:v", "mpeg4", path])
    }

    /// The frame number a counter clip's frame shows in `picture` (the frame filling it); `nil`
    /// when its top band does not read as blocks (a frame between two, a picture of something else).
    public static func frameNumber(_ picture: Picture) -> Int? {
        var n = 0
        let y = picture.height / 8
        for b in 0..<16 {
            let v = picture.rgb((2 * b + 1) * picture.width / 32, y).g
            if v > 192 {
                n |= 1 << b
            } else if v > 64 {
                return nil
            }
        }
        return n
    }

    /// A PNG read as a picture (ffmpeg writes it out as PPM at `ppm`); `nil` when it cannot be.
    public static func picture(png: String, ppm: String) throws -> Picture? {
        try ffmpeg(["-i", png, "-f", "image2", "-c:v", "ppm", ppm])
        guard let bytes = FileManager.default.contents(atPath: ppm) else { return nil }
        return Picture(ppm: Array(bytes))
    }

    static func ffmpeg(_ arguments: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        p.arguments = ["-loglevel", "error", "-y"] + arguments
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw HarnessError("ffmpeg could not make \(arguments.last ?? "its output")")
        }
    }
}
