//! The sentence encoder (all-MiniLM-L6-v2): meaning over words, unit vectors, batches, empty text.

use std::time::Instant;

use kino::{LexicalEncoder, TextEncoder, text::dot};
use kino_models::onnx_fuse::Fused;
use kino_models::{Arithmetic, SENTENCE_DIM, SentenceEncoder, manifest};

use crate::support::models;

fn encoder(test: &str) -> Option<SentenceEncoder> {
    let (dir, runtime) = models(test, &[&manifest::MINILM])?;
    Some(SentenceEncoder::load(&runtime, &dir, 1).unwrap())
}

#[test]
fn a_car_chase_is_closer_to_a_pursuit_than_to_a_dinner() {
    let Some(semantic) = encoder("a_car_chase_is_closer_to_a_pursuit_than_to_a_dinner") else { return };
    let lexical = LexicalEncoder::default();
    for (name, enc) in [("semantic", &semantic as &dyn TextEncoder), ("lexical", &lexical)] {
        let query = enc.encode("car chase").unwrap();
        let pursuit = dot(&query, &enc.encode("a pursuit through the streets").unwrap());
        let dinner = dot(&query, &enc.encode("a quiet dinner").unwrap());
        eprintln!("{name} ({}): car chase vs pursuit {pursuit:.3}, vs quiet dinner {dinner:.3}", enc.version());
        if name == "semantic" {
            assert!(pursuit > dinner + 0.1, "pursuit {pursuit}, dinner {dinner}");
        }
    }
}

#[test]
fn vectors_are_unit_length_and_batches_agree_with_single_texts() {
    let Some(enc) = encoder("vectors_are_unit_length_and_batches_agree_with_single_texts") else { return };
    let texts = ["an explosion on the bridge", "two friends laugh at a joke in a small kitchen late at night", "rain"];
    let batch = enc.encode_batch(&texts).unwrap();
    for (text, b) in texts.iter().zip(&batch) {
        let single = enc.encode(text).unwrap();
        assert_eq!(single.len(), SENTENCE_DIM);
        assert!((dot(&single, &single) - 1.0).abs() < 1e-5);
        // Int8 products run each text as its own call, so a batch gives exactly the single vectors.
        assert_eq!(&single, b, "{text}: the batched vector differs from the single one");
    }
    assert_eq!(enc.encode("car chase").unwrap(), enc.encode("car chase").unwrap(), "deterministic");
    assert!(matches!(enc.encode("  ?! "), Err(kino::Error::EmptyText)));
    assert_eq!(enc.version(), "all-minilm-l6-v2 1.0.0");
}

#[test]
fn long_texts_are_truncated() {
    let Some(enc) = encoder("long_texts_are_truncated") else { return };
    let long = "the detective follows the suspect through the crowded market ".repeat(100);
    assert_eq!(enc.encode(&long).unwrap().len(), SENTENCE_DIM);
    let queries =
        ["car chase", "a romantic walk on the beach at sunset", "explosions", "a scary scene in a dark house"];
    let started = Instant::now();
    let rounds = 25;
    for _ in 0..rounds {
        for q in queries {
            enc.encode(q).unwrap();
        }
    }
    let per_query = started.elapsed().as_secs_f64() / (rounds * queries.len()) as f64;
    eprintln!(
        "all-minilm-l6-v2: load {:.3} s, {:.2} ms per short query (one thread)",
        enc.load_seconds(),
        per_query * 1e3
    );
    // The speed is a figure (printed above, and `scripts/text-bench.sh` for the service), not an
    // assertion: a test must not fail on a busy machine.
}

#[test]
fn int8_products_agree_with_the_float_graph() {
    let Some((dir, runtime)) = models("int8_products_agree_with_the_float_graph", &[&manifest::MINILM]) else {
        return;
    };
    let int8 = SentenceEncoder::load(&runtime, &dir, 1).unwrap();
    let float = SentenceEncoder::load_with(&runtime, &dir, 1, Arithmetic::Float).unwrap();
    assert_eq!((int8.arithmetic(), int8.int8_products()), (Arithmetic::Int8, 36));
    assert_eq!((float.arithmetic(), float.int8_products()), (Arithmetic::Float, 0));
    let texts = [
        "car chase",
        "a pursuit through the streets",
        "a quiet dinner",
        "two friends laugh at a joke in a small kitchen late at night",
        "Dark, slow scene; rain and thunder; a man walks alone while sirens wail in the distance.",
    ];
    let (a, b) = (int8.encode_batch(&texts).unwrap(), float.encode_batch(&texts).unwrap());
    let mut worst: f64 = 1.0;
    for ((text, x), y) in texts.iter().zip(&a).zip(&b) {
        let cosine = dot(x, y);
        eprintln!("int8 vs float, {text:?}: cosine {cosine:.4}");
        worst = worst.min(cosine);
    }
    assert!(worst > 0.98, "int8 products moved a vector to cosine {worst}");
    // The order of meaning is the same: the pursuit is nearer the car chase than the dinner.
    for v in [&a, &b] {
        assert!(dot(&v[0], &v[1]) > dot(&v[0], &v[2]) + 0.1);
    }
}

#[test]
fn the_fused_graph_gives_the_exported_vectors() {
    let Some((dir, runtime)) = models("the_fused_graph_gives_the_exported_vectors", &[&manifest::MINILM]) else {
        return;
    };
    let texts = [
        "car chase",
        "a pursuit through the streets",
        "two friends laugh at a joke in a small kitchen late at night",
        "Dark, slow scene; rain and thunder; a man walks alone while sirens wail in the distance.",
        &"the detective follows the suspect through the crowded market ".repeat(40),
    ];
    for arithmetic in [Arithmetic::Int8, Arithmetic::Float] {
        let fused = SentenceEncoder::load_with(&runtime, &dir, 2, arithmetic).unwrap();
        let exported = SentenceEncoder::load_unfused(&runtime, &dir, 2, arithmetic).unwrap();
        let f = fused.fused();
        eprintln!("{arithmetic:?}: {f:?}");
        assert_eq!((f.attention, f.gelu), (6, 6), "{arithmetic:?}: six layers, each fused");
        assert_eq!((fused.gathered_tables(), exported.gathered_tables()), (2, 0), "words and positions");
        assert!(f.dead > 0, "the shape computations of the removed nodes go too");
        assert_eq!(exported.fused(), Fused::default());
        // Float runs the texts as one padded batch, so the attention mask of the padding is exercised.
        let (a, b) = (fused.encode_batch(&texts).unwrap(), exported.encode_batch(&texts).unwrap());
        for ((text, x), y) in texts.iter().zip(&a).zip(&b) {
            let worst = x.iter().zip(y).map(|(p, q)| (p - q).abs()).fold(0f32, f32::max);
            let cosine = dot(x, y);
            eprintln!(
                "{arithmetic:?}, fused vs exported, {:?}: cosine {cosine:.6}, largest difference {worst:e}",
                &text[..text.len().min(30)]
            );
            match arithmetic {
                // The same float arithmetic in fewer kernels: equal to rounding.
                Arithmetic::Float => assert!(worst < 1e-5, "the fused graph moved {text:?} by {worst}"),
                // Layer normalisation unfused (see `Optimisations::Basic`) rounds differently in the
                // last bit, and the next product quantises its input to 8 bits: a value on a
                // rounding edge moves a whole step, and the layers after carry it on. Int8 against
                // float is a cosine of 0.99 (`int8_products_agree_with_the_float_graph`); this
                // stays well inside that.
                Arithmetic::Int8 => assert!(cosine > 0.995, "the fused graph moved {text:?} to cosine {cosine}"),
            }
        }
    }
}
