//! Prints the signals document of a video: `cargo run -p kino-media --example analyze_file -- video.mp4`.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: analyze_file <video>")?;
    // The fetched models (`kino models fetch`); missing ones leave their channels absent.
    let models = kino_media::AnalysisModels::load(&kino_models::ModelsDir::resolve(None)?, 1);
    let doc = kino_media::analyze(&path, &kino_media::AnalyzeOptions::default(), &models, |_, _| {})?;
    println!("{}", doc.to_json_pretty());
    Ok(())
}
