// Images for the composer: which files may be attached (type, size cap) and the chip each becomes.

import type { Attachment } from "./composer";

/** Per image; the Gemini API takes about 20 MB of inline data per request, and several images may go at once. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
export const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/webp", "image/gif", "image/heic", "image/heif"]);

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** Why a file cannot be attached as an image, in words for the user; undefined when it can. */
export function imageProblem(name: string, type: string, size: number): string | undefined {
  if (!IMAGE_TYPES.has(type)) {
    return `${name || "That file"} is not an image the model reads (PNG, JPEG, WebP, GIF or HEIC).`;
  }
  if (size > MAX_IMAGE_BYTES) {
    return `${name || "The image"} is ${megabytes(size)}; images up to ${megabytes(MAX_IMAGE_BYTES)} can be attached.`;
  }
  return undefined;
}

let counter = 0;

/** An image chip: the thumbnail and the block are the same base64 data. */
export function imageAttachment(name: string, mimeType: string, data: string, size: number): Attachment {
  counter += 1;
  const label = name || `pasted image ${counter}`;
  return { id: `img-${Date.now().toString(36)}-${counter}`, kind: "image", label, detail: `${label} (${megabytes(size)})`, block: { type: "image", mimeType, data } };
}

/** Said before anything is sent when the chat's model takes no images. */
export function imagesRefused(model: string | undefined): string {
  return `${model ?? "This model"} does not take images. Remove the image chips, or pick a model that reads images.`;
}
