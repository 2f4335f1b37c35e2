//! darknet's own formats, read without darknet: the network configuration (an INI-like `.cfg`:
//! `[section]` headers, `key=value` lines, `#` and `;` comments) and the weights file (a header of
//! three `i32` version numbers and the count of images seen in training, an `i64` from version 0.2
//! on, then every convolution's parameters as little-endian `f32`s in layer order: biases, then,
//! with batch normalisation, its scales, means and variances, then the kernel).
//!
//! Only what YOLOv3-tiny uses is accepted (convolutions with leaky or linear activation, max
//! pooling, nearest upsampling, routes, YOLO heads); anything else is an error that names the
//! section, so a different network is refused rather than run wrongly.

/// A layer of the network, as the configuration states it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Layer {
    /// A convolution (`pad=1` means a padding of half the kernel), optionally followed by batch
    /// normalisation, then a leaky ReLU (slope 0.1) or nothing.
    Conv { filters: usize, size: usize, stride: usize, padding: usize, batch_normalize: bool, leaky: bool },
    /// Max pooling over `size x size` windows every `stride` pixels, darknet's padding of `size -
    /// 1` split as `(size - 1) / 2` before and the rest after (the padding never wins).
    MaxPool { size: usize, stride: usize },
    /// Nearest-neighbour upsampling by `stride`.
    Upsample { stride: usize },
    /// The outputs of earlier layers (absolute indices), concatenated along the channels.
    Route { layers: Vec<usize> },
    /// A detection head over the previous layer's output: the anchors it uses (pixels of the
    /// network's input, width and height) and the number of classes.
    Yolo { anchors: Vec<(f32, f32)>, classes: usize },
}

/// The network: its input channels and layers.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Network {
    pub channels: usize,
    pub layers: Vec<Layer>,
}

/// One convolution's parameters, batch normalisation not yet folded in.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ConvWeights {
    /// `[filters, input channels, size, size]`.
    pub shape: [usize; 4],
    pub biases: Vec<f32>,
    /// Batch normalisation's scales, means and variances, when the layer has it.
    pub norm: Option<[Vec<f32>; 3]>,
    pub kernel: Vec<f32>,
}

fn parse_usize(section: &str, key: &str, value: &str) -> Result<usize, String> {
    value.trim().parse().map_err(|_| format!("[{section}] {key}: expected a whole number, found {value:?}"))
}

fn parse_list<T: std::str::FromStr>(section: &str, key: &str, value: &str) -> Result<Vec<T>, String> {
    value
        .split(',')
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(|v| v.parse().map_err(|_| format!("[{section}] {key}: cannot read {v:?} in {value:?}")))
        .collect()
}

/// Parses a darknet configuration.
pub(crate) fn parse_cfg(text: &str) -> Result<Network, String> {
    let mut sections: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.split(['#', ';']).next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            sections.push((name.trim().to_string(), Vec::new()));
        } else if let Some((key, value)) = line.split_once('=') {
            let Some((_, options)) = sections.last_mut() else {
                return Err(format!("line {}: an option before any section", n + 1));
            };
            options.push((key.trim().to_string(), value.trim().to_string()));
        } else {
            return Err(format!("line {}: expected `[section]` or `key=value`, found {line:?}", n + 1));
        }
    }
    let mut iter = sections.into_iter();
    let (first, net) = iter.next().ok_or("no sections")?;
    if first != "net" && first != "network" {
        return Err(format!("the first section must be [net], found [{first}]"));
    }
    let get =
        |options: &[(String, String)], key: &str| options.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.clone());
    let channels = get(&net, "channels").map_or(Ok(3), |v| parse_usize("net", "channels", &v))?;
    let mut layers = Vec::new();
    for (index, (name, options)) in iter.enumerate() {
        let opt = |key: &str, default: usize| get(&options, key).map_or(Ok(default), |v| parse_usize(&name, key, &v));
        let layer = match name.as_str() {
            "convolutional" | "conv" => {
                let size = opt("size", 1)?;
                let padding = match get(&options, "padding") {
                    Some(v) => parse_usize(&name, "padding", &v)?,
                    None if opt("pad", 0)? != 0 => size / 2,
                    None => 0,
                };
                let leaky = match get(&options, "activation").as_deref().unwrap_or("logistic") {
                    "leaky" => true,
                    "linear" => false,
                    other => return Err(format!("layer {index} [{name}]: activation {other:?} is not supported")),
                };
                if opt("groups", 1)? != 1 {
                    return Err(format!("layer {index} [{name}]: grouped convolutions are not supported"));
                }
                Layer::Conv {
                    filters: opt("filters", 1)?,
                    size,
                    stride: opt("stride", 1)?,
                    padding,
                    batch_normalize: opt("batch_normalize", 0)? != 0,
                    leaky,
                }
            }
            "maxpool" | "max" => {
                let stride = opt("stride", 1)?;
                Layer::MaxPool { size: opt("size", stride)?, stride }
            }
            "upsample" => Layer::Upsample { stride: opt("stride", 2)? },
            "route" => {
                let relative: Vec<i64> =
                    parse_list(&name, "layers", &get(&options, "layers").ok_or("[route] without layers")?)?;
                let layers = relative
                    .iter()
                    .map(|&l| {
                        let at = if l < 0 { index as i64 + l } else { l };
                        usize::try_from(at)
                            .ok()
                            .filter(|&a| a < index)
                            .ok_or_else(|| format!("layer {index} [route]: layer {l} is not an earlier layer"))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                if layers.is_empty() {
                    return Err(format!("layer {index} [route]: no layers"));
                }
                Layer::Route { layers }
            }
            "yolo" => {
                let all: Vec<f32> = parse_list(&name, "anchors", &get(&options, "anchors").unwrap_or_default())?;
                let mask: Vec<usize> = parse_list(&name, "mask", &get(&options, "mask").unwrap_or_default())?;
                let pairs: Vec<(f32, f32)> = all.chunks_exact(2).map(|p| (p[0], p[1])).collect();
                let anchors = mask
                    .iter()
                    .map(|&m| {
                        pairs.get(m).copied().ok_or_else(|| format!("layer {index} [yolo]: mask {m} has no anchor"))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                if anchors.is_empty() {
                    return Err(format!("layer {index} [yolo]: no anchors"));
                }
                Layer::Yolo { anchors, classes: opt("classes", 20)? }
            }
            other => return Err(format!("layer {index}: [{other}] layers are not supported")),
        };
        if let Layer::Conv { filters: 0, .. }
        | Layer::Conv { size: 0, .. }
        | Layer::Conv { stride: 0, .. }
        | Layer::MaxPool { size: 0, .. }
        | Layer::MaxPool { stride: 0, .. }
        | Layer::Upsample { stride: 0, .. } = layer
        {
            return Err(format!("layer {index} [{name}]: sizes, strides and filters must be at least 1"));
        }
        layers.push(layer);
    }
    Ok(Network { channels, layers })
}

/// The channels of each layer's output.
pub(crate) fn channels(net: &Network) -> Result<Vec<usize>, String> {
    let mut out: Vec<usize> = Vec::with_capacity(net.layers.len());
    for (i, layer) in net.layers.iter().enumerate() {
        let previous = if i == 0 { net.channels } else { out[i - 1] };
        out.push(match layer {
            Layer::Conv { filters, .. } => *filters,
            Layer::MaxPool { .. } | Layer::Upsample { .. } => previous,
            Layer::Route { layers } => layers.iter().map(|&l| out[l]).sum(),
            Layer::Yolo { anchors, classes } => {
                if previous != anchors.len() * (classes + 5) {
                    return Err(format!(
                        "layer {i} [yolo]: the layer before has {previous} channels, expected {} anchors x ({classes} classes + 5)",
                        anchors.len()
                    ));
                }
                previous
            }
        });
    }
    Ok(out)
}

/// Reads the weights file of `net`: every convolution's parameters, in layer order. The file
/// must hold exactly what the configuration needs.
pub(crate) fn read_weights(bytes: &[u8], net: &Network) -> Result<Vec<ConvWeights>, String> {
    let word = |at: usize| -> Result<u32, String> {
        let b = bytes.get(at..at + 4).ok_or("the file ends inside its header")?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let (major, minor) = (word(0)?, word(4)?);
    // Version 0.2 and later count the images seen in 64 bits.
    let header = if major * 10 + minor >= 2 && major < 1000 && minor < 1000 { 20 } else { 16 };
    let body = bytes.get(header..).ok_or("the file ends inside its header")?;
    if body.len() % 4 != 0 {
        return Err(format!("{} bytes after the header: not a whole number of floats", body.len()));
    }
    let mut floats = body.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    let total = body.len() / 4;
    let mut used = 0usize;
    let mut take = |n: usize, what: &str| -> Result<Vec<f32>, String> {
        used += n;
        if used > total {
            return Err(format!("the file ends in {what}: {total} floats, the network needs more"));
        }
        let v: Vec<f32> = floats.by_ref().take(n).collect();
        if v.iter().any(|x| !x.is_finite()) {
            return Err(format!("{what}: a value is not finite"));
        }
        Ok(v)
    };
    let inputs = channels(net)?;
    let mut out = Vec::new();
    for (i, layer) in net.layers.iter().enumerate() {
        let Layer::Conv { filters, size, batch_normalize, .. } = *layer else { continue };
        let input = if i == 0 { net.channels } else { inputs[i - 1] };
        let what = format!("layer {i} (convolution)");
        let biases = take(filters, &what)?;
        let norm = if batch_normalize {
            let scales = take(filters, &what)?;
            let means = take(filters, &what)?;
            let variances = take(filters, &what)?;
            if variances.iter().any(|&v| v < 0.0) {
                return Err(format!("{what}: a negative variance"));
            }
            Some([scales, means, variances])
        } else {
            None
        };
        let kernel = take(filters * input * size * size, &what)?;
        out.push(ConvWeights { shape: [filters, input, size, size], biases, norm, kernel });
    }
    if used != total {
        return Err(format!("the file holds {total} floats, the network uses {used}"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOY: &str = "[net]\nchannels=3 # rgb\n\n[convolutional]\nbatch_normalize=1\nfilters=2\nsize=3\nstride=1\npad=1\nactivation=leaky\n\n[maxpool]\nsize=2\nstride=2\n\n[convolutional]\nfilters=12\nsize=1\nactivation=linear\n\n[yolo]\nmask = 1,2\nanchors = 1,2, 3,4, 5,6\nclasses=1\n\n[route]\nlayers = -3, 0\n\n[upsample]\nstride=2\n";

    #[test]
    fn a_configuration_is_read_with_absolute_routes() {
        let net = parse_cfg(TOY).unwrap();
        assert_eq!(net.channels, 3);
        assert_eq!(
            net.layers,
            vec![
                Layer::Conv { filters: 2, size: 3, stride: 1, padding: 1, batch_normalize: true, leaky: true },
                Layer::MaxPool { size: 2, stride: 2 },
                Layer::Conv { filters: 12, size: 1, stride: 1, padding: 0, batch_normalize: false, leaky: false },
                Layer::Yolo { anchors: vec![(3.0, 4.0), (5.0, 6.0)], classes: 1 },
                Layer::Route { layers: vec![1, 0] },
                Layer::Upsample { stride: 2 },
            ]
        );
        assert_eq!(channels(&net).unwrap(), vec![2, 2, 12, 12, 4, 4]);
    }

    #[test]
    fn weights_are_read_in_darknet_order_and_must_fit_exactly() {
        let net = parse_cfg(TOY).unwrap();
        // Layer 0: 2 biases, 3 x 2 norm values, 2*3*3*3 kernel; layer 2: 12 biases, 12*2 kernel.
        let n = 2 + 6 + 54 + 12 + 24;
        let mut bytes: Vec<u8> = [0u32, 2, 0, 0, 0].iter().flat_map(|v| v.to_le_bytes()).collect();
        bytes.extend((0..n).flat_map(|i| (i as f32).to_le_bytes()));
        let w = read_weights(&bytes, &net).unwrap();
        assert_eq!(w.len(), 2);
        assert_eq!(w[0].shape, [2, 3, 3, 3]);
        assert_eq!(w[0].biases, [0.0, 1.0]);
        assert_eq!(w[0].norm.as_ref().unwrap()[2], [6.0, 7.0]);
        assert_eq!(w[0].kernel[0], 8.0);
        assert_eq!((w[1].shape, w[1].biases[0], w[1].norm.is_none()), ([12, 2, 1, 1], 62.0, true));
        let short = read_weights(&bytes[..bytes.len() - 4], &net).unwrap_err();
        assert!(short.contains("layer 2"), "{short}");
        let mut long = bytes.clone();
        long.extend(1f32.to_le_bytes());
        assert!(read_weights(&long, &net).unwrap_err().contains("uses"));
        assert!(read_weights(&[1, 2], &net).is_err());
    }

    #[test]
    fn unsupported_or_broken_configurations_are_refused() {
        for (cfg, says) in [
            ("[net]\n[shortcut]\nfrom=-1\n", "[shortcut]"),
            ("[net]\n[convolutional]\nactivation=mish\n", "mish"),
            ("[net]\n[route]\nlayers=-1\n", "not an earlier layer"),
            ("[net]\n[convolutional]\nfilters=x\nactivation=leaky\n", "filters"),
            ("[net]\n[maxpool]\nstride=0\n", "at least 1"),
            ("filters=1\n", "before any section"),
            ("[convolutional]\n", "[net]"),
            (
                "[net]\n[convolutional]\nfilters=5\nactivation=linear\n[yolo]\nmask=0\nanchors=1,1\nclasses=1\n",
                "expected 1 anchors",
            ),
        ] {
            let e = parse_cfg(cfg).and_then(|n| channels(&n).map(|_| ())).unwrap_err();
            assert!(e.contains(says), "{cfg:?}: {e}");
        }
    }
}
