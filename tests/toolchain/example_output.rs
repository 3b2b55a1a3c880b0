//! The grayscale command never destroys data: an output that is the input
//! (any spelling, any link) is refused, an unwritable or non-regular output is
//! an error with nothing claimed written, and an interrupted write leaves the
//! old file as it was (`gpujit_examples::output`).

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};

use gpujit_examples::output::{check_output, replace_file};

#[path = "../../examples/grayscale.rs"]
#[allow(dead_code)]
mod grayscale;

/// A fresh folder holding a copy of the committed photo as `in.png`.
fn scratch() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temporary folder");
    let input = dir.path().join("in.png");
    let photo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/data/coffee.png");
    fs::copy(photo, &input).expect("copy the photo");
    (dir, input)
}

/// Runs the command and returns its error message; panics if it succeeded.
fn refused(input: &Path, output: &Path) -> String {
    match grayscale::convert_file(input, output) {
        Ok(_) => panic!("{} -> {} was accepted", input.display(), output.display()),
        Err(e) => e.to_string(),
    }
}

fn output_equal_to_input_is_refused_in_every_spelling() {
    let (dir, input) = scratch();
    let before = fs::read(&input).unwrap();
    let spelled = dir.path().join(".").join("in.png");
    let detour = dir.path().join("sub");
    fs::create_dir(&detour).unwrap();
    let dotdot = detour.join("..").join("in.png");
    let link = dir.path().join("link.png");
    std::os::unix::fs::symlink(&input, &link).unwrap();
    let hard = dir.path().join("hard.png");
    fs::hard_link(&input, &hard).unwrap();
    for output in [&input, &spelled, &dotdot, &link, &hard] {
        let msg = refused(&input, output);
        assert!(msg.contains("is the input"), "{}: {msg}", output.display());
    }
    // The other way round too: the link as input, the file as output.
    assert!(refused(&link, &input).contains("is the input"));
    assert_eq!(fs::read(&input).unwrap(), before, "the photo was modified");
}

fn non_regular_outputs_are_errors_and_nothing_is_claimed_written() {
    let (dir, input) = scratch();
    let full = dir.path().join("full.png");
    std::os::unix::fs::symlink("/dev/full", &full).unwrap();
    assert!(refused(&input, &full).contains("not a regular file"));
    assert!(
        fs::symlink_metadata(&full).unwrap().file_type().is_symlink(),
        "the link was replaced"
    );
    let folder = dir.path().join("folder.png");
    fs::create_dir(&folder).unwrap();
    assert!(refused(&input, &folder).contains("not a regular file"));
    let dangling = dir.path().join("dangling.png");
    std::os::unix::fs::symlink(dir.path().join("nowhere/x.png"), &dangling).unwrap();
    assert!(refused(&input, &dangling).contains("cannot be resolved"));
    let missing_folder = dir.path().join("no/such/folder/out.png");
    assert!(refused(&input, &missing_folder).contains("create it first"));
    assert!(refused(&input, &dir.path().join("out.jpg")).contains("does not end in .png"));
}

fn a_good_output_is_written_and_an_old_one_replaced() {
    let (dir, input) = scratch();
    let output = dir.path().join("out.png");
    fs::write(&output, b"old contents").unwrap();
    let differing = grayscale::convert_file(&input, &output).expect("conversion");
    assert_eq!(differing, 0);
    let written = image::open(&output).expect("a PNG").to_luma8();
    let rgb = grayscale::load_rgb(&input).unwrap();
    let reference = grayscale::grayscale_host(&rgb);
    assert_eq!(written.as_raw().as_slice(), reference.as_slice().unwrap());
    // Through a link, the link's target is replaced and the link kept.
    let link = dir.path().join("via-link.png");
    std::os::unix::fs::symlink(&output, &link).unwrap();
    fs::write(&output, b"old again").unwrap();
    grayscale::convert_file(&input, &link).expect("conversion through a link");
    assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert!(image::open(&output).is_ok());
    assert_eq!(leftovers(dir.path()), Vec::<String>::new());
}

fn an_interrupted_write_leaves_the_old_file_and_no_temporary() {
    let (dir, input) = scratch();
    let output = dir.path().join("out.png");
    fs::write(&output, b"old contents").unwrap();
    let target = check_output(&output, &[&input], "png").unwrap();
    let err = replace_file(&target, |file| {
        use std::io::Write;
        file.write_all(b"half a PNG")?;
        Err(std::io::Error::other("killed mid-write"))
    })
    .unwrap_err();
    assert!(err.contains("killed mid-write") && err.contains("unchanged"), "{err}");
    assert_eq!(fs::read(&output).unwrap(), b"old contents");
    assert_eq!(leftovers(dir.path()), Vec::<String>::new());
}

/// Temporary files left in `dir`.
fn leftovers(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect()
}

/// The tests of this file, for the crate's harness.
pub fn cases() -> Vec<common::Case> {
    cases![
        None => output_equal_to_input_is_refused_in_every_spelling,
        None => non_regular_outputs_are_errors_and_nothing_is_claimed_written,
        None => a_good_output_is_written_and_an_old_one_replaced,
        None => an_interrupted_write_leaves_the_old_file_and_no_temporary,
    ]
}
