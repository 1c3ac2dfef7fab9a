//! Opening a trace: the file, transparent decompression, and progress counting.
//!
//! Owns: [`Input`] (a buffered, decompressed byte stream plus the name used in error messages)
//! and the compression rules. Compression is recognised by file name (`.gz`, `.zst`, `.bz2`) AND
//! by magic bytes (gzip `1f 8b`, zstd `28 b5 2f fd`, bzip2 `BZh1`–`BZh9`): content with a magic
//! is decompressed whatever its name (so a renamed `.gz` still reads), and a name that promises a
//! compression the content lacks is an error rather than a guess. Decoders are streaming
//! (`MultiGzDecoder`, `MultiBzDecoder`, zstd's multi-frame reader); nothing is loaded whole.
//! Corrupt or cut compressed data is an input error at the line (record) being read that names
//! the codec and the compressed and decompressed byte offsets where decoding failed; an error
//! reading the file itself stays an I/O error.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use super::at_file;
use crate::error::Error;

/// Read-buffer size for files and decoders.
const BUF_BYTES: usize = 256 * 1024;

/// A compression wrapper.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Codec {
    Gzip,
    Zstd,
    Bzip2,
}

impl Codec {
    /// The codec a file name's last extension names, if any.
    pub(crate) fn from_name(path: &Path) -> Option<Codec> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "gz" => Some(Codec::Gzip),
            "zst" => Some(Codec::Zstd),
            "bz2" => Some(Codec::Bzip2),
            _ => None,
        }
    }

    /// The codec whose magic bytes start `head`, if any.
    fn from_magic(head: &[u8]) -> Option<Codec> {
        match head {
            [0x1f, 0x8b, ..] => Some(Codec::Gzip),
            [0x28, 0xb5, 0x2f, 0xfd, ..] => Some(Codec::Zstd),
            [b'B', b'Z', b'h', b'1'..=b'9', ..] => Some(Codec::Bzip2),
            _ => None,
        }
    }

    fn label(self) -> &'static str {
        match self {
            Codec::Gzip => "gzip",
            Codec::Zstd => "zstd",
            Codec::Bzip2 => "bzip2",
        }
    }
}

/// The extension of `path` after removing a compression suffix (`a.vscsi.gz` → `vscsi`),
/// lower-cased; empty when there is none.
pub(crate) fn inner_extension(path: &Path) -> String {
    let inner = if Codec::from_name(path).is_some() { path.file_stem().map(Path::new) } else { Some(path) };
    inner.and_then(|p| p.extension()).and_then(|e| e.to_str()).map(|e| e.to_ascii_lowercase()).unwrap_or_default()
}

/// Bytes consumed from the underlying file, shared with the reader that reports progress.
#[derive(Clone, Debug)]
pub(crate) struct Progress {
    done: Arc<AtomicU64>,
    total: u64,
}

impl Progress {
    pub(crate) fn get(&self) -> (u64, u64) {
        (self.done.load(Ordering::Relaxed), self.total)
    }
}

/// Counts the bytes read through it (before decompression).
struct Counting<R> {
    inner: R,
    done: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.done.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// A decompressed, buffered trace stream.
pub(crate) struct Input {
    /// The file name as shown in error messages.
    pub name: String,
    pub reader: Box<dyn BufRead + Send>,
    pub progress: Option<Progress>,
}

impl Input {
    /// Open a file, decompressing by name and magic bytes.
    pub(crate) fn open(path: &Path) -> Result<Input, Error> {
        let name = path.display().to_string();
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        let total = file.metadata().map_err(|e| Error::io(path, e))?.len();
        let done = Arc::new(AtomicU64::new(0));
        let counted = Counting { inner: file, done: done.clone() };
        let reader = decode(&name, Box::new(counted), Codec::from_name(path))?;
        Ok(Input { name, reader, progress: Some(Progress { done, total }) })
    }

    /// Wrap any stream, decompressing by magic bytes only.
    pub(crate) fn from_stream(name: &str, stream: Box<dyn Read + Send>) -> Result<Input, Error> {
        let reader = decode(name, stream, None)?;
        Ok(Input { name: name.to_string(), reader, progress: None })
    }
}

/// Put a decoder in front of `raw` if its first bytes (or `by_name`) say it is compressed.
fn decode(name: &str, raw: Box<dyn Read + Send>, by_name: Option<Codec>) -> Result<Box<dyn BufRead + Send>, Error> {
    let mut buf = BufReader::with_capacity(BUF_BYTES, raw);
    let by_magic = Codec::from_magic(buf.fill_buf().map_err(|e| Error::io(name, e))?);
    if let Some(named) = by_name {
        if by_magic != Some(named) {
            let msg = format!(
                "the file name says {} but the content does not start with {} magic bytes",
                named.label(),
                named.label()
            );
            return Err(Error::input(at_file(name), msg));
        }
    }
    let Some(codec) = by_magic else { return Ok(Box::new(buf)) };
    let tap = Tap { inner: buf, consumed: 0, failed: false, shared: Arc::default() };
    let shared = tap.shared.clone();
    let decoder: Box<dyn Read + Send> = match codec {
        Codec::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(tap)),
        Codec::Bzip2 => Box::new(bzip2::bufread::MultiBzDecoder::new(tap)),
        Codec::Zstd => Box::new(
            zstd::stream::read::Decoder::with_buffer(tap)
                .map_err(|e| Error::input(at_file(name), format!("cannot start the zstd decoder: {e}")))?,
        ),
    };
    let decoded = Decoded { inner: decoder, codec, produced: 0, shared };
    Ok(Box::new(BufReader::with_capacity(BUF_BYTES, decoded)))
}

/// What the compressed side of a decoder reports to the decompressed side: compressed bytes
/// consumed so far, and whether reading the compressed stream itself failed (a disk error, not
/// corrupt data).
#[derive(Default)]
struct TapState {
    consumed: AtomicU64,
    failed: AtomicBool,
}

/// The compressed stream under a decoder: counts the bytes the decoder consumes and notes a
/// read failure, so a decoding error can say where it happened and what it was.
struct Tap<B> {
    inner: B,
    consumed: u64,
    failed: bool,
    shared: Arc<TapState>,
}

impl<B> Tap<B> {
    fn note<T>(&mut self, r: std::io::Result<T>) -> std::io::Result<T> {
        if r.is_err() && !self.failed {
            self.failed = true;
            self.shared.failed.store(true, Ordering::Relaxed);
        }
        r
    }
}

impl<B: BufRead> Read for Tap<B> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let r = self.inner.read(out);
        let n = self.note(r)?;
        self.consume_count(n);
        Ok(n)
    }
}

impl<B: BufRead> BufRead for Tap<B> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        // Two steps so the borrow of `inner` ends before the failure is noted.
        if let Err(e) = self.inner.fill_buf() {
            return self.note(Err(e));
        }
        self.inner.fill_buf()
    }
    fn consume(&mut self, n: usize) {
        self.inner.consume(n);
        self.consume_count(n);
    }
}

impl<B> Tap<B> {
    fn consume_count(&mut self, n: usize) {
        self.consumed += n as u64;
        self.shared.consumed.store(self.consumed, Ordering::Relaxed);
    }
}

/// A decoder's output: counts decompressed bytes and turns a decoding error into
/// [`ErrorKind::InvalidData`](std::io::ErrorKind::InvalidData) naming the codec and the
/// compressed and decompressed byte offsets (the line reader adds file and line). An error of
/// the compressed stream itself passes through unchanged.
struct Decoded<R> {
    inner: R,
    codec: Codec,
    produced: u64,
    shared: Arc<TapState>,
}

impl<R: Read> Read for Decoded<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        match self.inner.read(out) {
            Ok(n) => {
                self.produced += n as u64;
                Ok(n)
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted || self.shared.failed.load(Ordering::Relaxed) => {
                Err(e)
            }
            Err(e) => Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "corrupt {} data near compressed byte {} (decompressed byte {}): {e}",
                    self.codec.label(),
                    self.shared.consumed.load(Ordering::Relaxed),
                    self.produced
                ),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inner_extension_looks_through_compression() {
        assert_eq!(inner_extension(Path::new("a/b.vscsi.gz")), "vscsi");
        assert_eq!(inner_extension(Path::new("b.VSCSI")), "vscsi");
        assert_eq!(inner_extension(Path::new("cloud_storage-sample.bz2")), "");
        assert_eq!(inner_extension(Path::new("MSN-FS-30s-ms")), "");
        assert_eq!(inner_extension(Path::new("x.ascii.zst")), "ascii");
    }

    #[test]
    fn magic_is_recognised() {
        assert_eq!(Codec::from_magic(&[0x1f, 0x8b, 8]), Some(Codec::Gzip));
        assert_eq!(Codec::from_magic(&[0x28, 0xb5, 0x2f, 0xfd]), Some(Codec::Zstd));
        assert_eq!(Codec::from_magic(b"BZh9"), Some(Codec::Bzip2));
        assert_eq!(Codec::from_magic(b"BZhx"), None);
        assert_eq!(Codec::from_magic(b"1,2"), None);
        assert_eq!(Codec::from_magic(b""), None);
    }

    #[test]
    fn name_promising_compression_without_magic_is_an_error() {
        let err = decode("t.gz", Box::new(&b"plain text\n"[..]), Some(Codec::Gzip)).err();
        let msg = err.map(|e| e.to_string()).unwrap_or_default();
        assert!(msg.contains("t.gz") && msg.contains("gzip"), "{msg}");
    }

    /// Issue 21: a corrupt zstd trace said only `Data corruption detected`.
    #[test]
    fn corrupt_compressed_data_names_codec_and_offsets() {
        let text: String = (0..2000).map(|i| format!("{i},w,{}\n", i * 4096)).collect();
        let gz = {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            std::io::Write::write_all(&mut e, text.as_bytes()).map(|_| e.finish()).and_then(|r| r).unwrap_or_default()
        };
        for (codec, mut bytes) in [("zstd", zstd::encode_all(text.as_bytes(), 3).unwrap_or_default()), ("gzip", gz)] {
            let mid = bytes.len() / 2;
            bytes[mid..mid + 8].iter_mut().for_each(|b| *b ^= 0x5a);
            let input = Input::from_stream("t.bin", Box::new(std::io::Cursor::new(bytes)));
            let mut lines = super::super::lines::Lines::new(
                "t.bin".into(),
                input.map(|i| i.reader).unwrap_or_else(|_| Box::new(&b""[..])),
            );
            let err = loop {
                match lines.advance() {
                    Ok(true) => continue,
                    Ok(false) => break None,
                    Err(e) => break Some(e.to_string()),
                }
            };
            let msg = err.unwrap_or_default();
            assert!(msg.starts_with("t.bin:"), "{codec}: {msg}");
            assert!(
                msg.contains(codec) && msg.contains("compressed byte") && msg.contains("decompressed byte"),
                "{codec}: {msg}"
            );
        }
    }
}
