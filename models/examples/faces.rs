//! Faces on PNG images, with timings:
//! `cargo run --release -p kino-models --example faces -- [--upsample N] [--frame] A.png [B.png ...]`.
//! `--frame` first takes the widest 16:9 band from the top of each image and resizes it to
//! 640 x 360, the analysis's frame. Prints each face (box in fractions, score), the time per frame
//! (mean of 5 runs) and the descriptor distances between the first faces of the images.

use std::time::Instant;

use kino_models::{FaceAnalyzer, ModelsDir, RgbImage, Runtime, resize_bilinear};

fn read_png(path: &str) -> RgbImage {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).expect("readable PNG")));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("a frame");
    let (w, h) = (info.width as usize, info.height as usize);
    let data = match info.color_type {
        png::ColorType::Rgb => buf[..w * h * 3].to_vec(),
        png::ColorType::Rgba => buf.chunks(4).take(w * h).flat_map(|p| [p[0], p[1], p[2]]).collect(),
        png::ColorType::Grayscale => buf[..w * h].iter().flat_map(|&g| [g, g, g]).collect(),
        other => panic!("{path}: unsupported PNG colour type {other:?}"),
    };
    RgbImage { width: w, height: h, data }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut upsample = 0;
    if args.first().is_some_and(|a| a == "--upsample") {
        upsample = args[1].parse()?;
        args.drain(..2);
    }
    let frame = args.first().is_some_and(|a| a == "--frame");
    if frame {
        args.remove(0);
    }
    let dir = ModelsDir::resolve(None)?;
    let runtime = Runtime::load(&dir)?;
    let mut faces = FaceAnalyzer::load(&runtime, &dir, 1)?;
    faces.set_upsample(upsample);
    println!("load {:.2} s", faces.load_seconds());
    let mut firsts = Vec::new();
    for path in &args {
        let mut image = read_png(path);
        if frame {
            let band = (image.width as f64 * 9.0 / 16.0).min(image.height as f64);
            image = resize_bilinear(image.frame(), [0.0, 0.0, image.width as f64, band], 640, 360);
        }
        let _ = faces.faces(image.frame())?;
        let runs = 5;
        let started = Instant::now();
        let mut found = Vec::new();
        for _ in 0..runs {
            found = faces.faces(image.frame())?;
        }
        let ms = started.elapsed().as_secs_f64() * 1000.0 / runs as f64;
        println!("{path} {}x{}: {} faces, {ms:.1} ms per frame", image.width, image.height, found.len());
        for f in &found {
            println!("  x {:.3} y {:.3} w {:.3} h {:.3} score {:.2}", f.x, f.y, f.w, f.h, f.score);
        }
        if let Some(f) = found.first() {
            firsts.push((path.clone(), f.embedding.clone()));
        }
    }
    for (i, (a, ea)) in firsts.iter().enumerate() {
        for (b, eb) in &firsts[i + 1..] {
            let d: f32 = ea.iter().zip(eb).map(|(x, y)| (x - y) * (x - y)).sum::<f32>().sqrt();
            println!("distance {a} - {b}: {d:.3}");
        }
    }
    Ok(())
}
