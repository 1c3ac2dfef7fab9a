//! SCSI command opcodes as recorded by VMware's vscsiStats tracing (CloudPhysics traces): which
//! ones are reads, which are writes, and which are known not to move user data. Shared by the
//! `cloudphysics` (CSV) and `vscsi` (binary) readers.
//!
//! Opcodes per the SCSI Block Commands (SBC) / SCSI Primary Commands (SPC) standards (T10).

use crate::workload::Op;

/// What an opcode means for a block trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Command {
    Io(Op),
    /// A command that moves no user data (inquiry, cache flush, ...): skipped.
    NonIo,
    /// Anything else: the reader reports an error rather than guess.
    Unknown,
}

/// Classify a SCSI opcode.
pub(crate) fn command(opcode: u64) -> Command {
    match opcode {
        // READ(6), READ(10), READ(12), READ(16)
        0x08 | 0x28 | 0xa8 | 0x88 => Command::Io(Op::Read),
        // WRITE(6), WRITE(10), WRITE(12), WRITE(16)
        0x0a | 0x2a | 0xaa | 0x8a => Command::Io(Op::Write),
        // TEST UNIT READY, REQUEST SENSE, INQUIRY, MODE SENSE(6), START STOP UNIT,
        // PREVENT ALLOW MEDIUM REMOVAL, READ CAPACITY(10), SYNCHRONIZE CACHE(10), LOG SENSE,
        // MODE SENSE(10), SYNCHRONIZE CACHE(16), SERVICE ACTION IN(16) (READ CAPACITY(16)),
        // REPORT LUNS
        0x00 | 0x03 | 0x12 | 0x1a | 0x1b | 0x1e | 0x25 | 0x35 | 0x4d | 0x5a | 0x91 | 0x9e | 0xa0 => Command::NonIo,
        _ => Command::Unknown,
    }
}

/// The error text for an opcode that is neither I/O nor known non-I/O.
pub(crate) fn unknown(opcode: u64) -> String {
    format!("SCSI opcode 0x{opcode:02x} is not a read (08/28/a8/88), a write (0a/2a/aa/8a) or a known non-I/O command")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opcodes() {
        assert_eq!(command(0x28), Command::Io(Op::Read));
        assert_eq!(command(0x2a), Command::Io(Op::Write));
        assert_eq!(command(0x35), Command::NonIo);
        assert_eq!(command(0x42), Command::Unknown, "UNMAP carries its ranges in a parameter list");
        assert!(unknown(0x42).contains("0x42"));
    }
}
