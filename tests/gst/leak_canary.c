/* A program that leaks on purpose, for scripts/leaks.sh: it creates one fx element and one buffer
 * and never releases them, then ends GStreamer the way gst-check does (gst_deinit()). leaks.sh runs
 * it first and requires the leaks tracer to report both objects; otherwise the tracer is not
 * active in that environment and a clean result of the real tests would mean nothing. */
#include <gst/gst.h>

int main(int argc, char **argv)
{
  gst_init(&argc, &argv);
  GstElement *element = gst_element_factory_make("fxgain", NULL);
  GstBuffer *buffer = gst_buffer_new_allocate(NULL, 64, NULL);
  if (element == NULL || buffer == NULL)
    return 2; /* the plugin is not found: leaks.sh reports that, not a leak */
  gst_deinit();
  return 0;
}
