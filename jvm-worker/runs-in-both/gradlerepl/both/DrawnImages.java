package gradlerepl.both;

import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import javax.imageio.ImageIO;

/**
 * A drawn image ({@code BufferedImage}) encoded as PNG or JPEG. Needs the java.desktop module: callers load this
 * class only where the runtime has it (jvm-worker/runs-in-both).
 */
public final class DrawnImages {
    private DrawnImages() {}

    public static boolean isDrawn(Object value) {
        return value instanceof BufferedImage;
    }

    /** The image's bytes as {@code mime} ({@link DisplayKinds#JPEG}, else PNG). */
    public static byte[] encode(Object value, String mime) {
        BufferedImage image = (BufferedImage) value;
        String format = DisplayKinds.JPEG.equals(mime) ? "jpg" : "png";
        // JPEG has no alpha channel: ImageIO silently writes nothing for ARGB images.
        BufferedImage source = format.equals("jpg") && image.getColorModel().hasAlpha() ? withoutAlpha(image) : image;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            if (!ImageIO.write(source, format, out)) {
                throw new IllegalArgumentException("no ImageIO writer for " + mime);
            }
        } catch (IOException e) {
            throw new IllegalStateException("could not encode the image as " + mime, e);
        }
        return out.toByteArray();
    }

    private static BufferedImage withoutAlpha(BufferedImage image) {
        BufferedImage rgb = new BufferedImage(image.getWidth(), image.getHeight(), BufferedImage.TYPE_INT_RGB);
        Graphics2D graphics = rgb.createGraphics();
        graphics.drawImage(image, 0, 0, null);
        graphics.dispose();
        return rgb;
    }
}
