package gradlerepl.maven;

import javax.inject.Named;
import javax.inject.Singleton;
import org.apache.maven.execution.ProjectExecutionEvent;
import org.apache.maven.execution.ProjectExecutionListener;
import org.apache.maven.plugin.MojoExecution;
import org.apache.maven.plugin.descriptor.MojoDescriptor;

/**
 * Lets {@code dependency:build-classpath} resolve only the scope gradle-repl asks it to report.
 *
 * <p>The goal declares {@code requiresDependencyResolution = TEST} (maven-dependency-plugin,
 * BuildClasspathMojo), and Maven resolves, for each project, the union of the scopes that the goals
 * it runs there require (maven-core, MojoExecutor#newDependencyContext). So a {@code main} classpath
 * needed every test-scope artifact: one that no repository has failed the build, though
 * {@code mvn compile} succeeds. With {@code -Dgradle-repl.classpathScope=runtime} the goal requires
 * runtime resolution instead. The dependency graph is collected whole either way (maven-core,
 * DefaultProjectDependenciesResolver: scopes filter what is downloaded, not the graph), so the
 * runtime artifacts, their versions and their order are those of a test-scope resolution.
 *
 * <p>Loaded as a core extension ({@code -Dmaven.ext.class.path}); found through the sisu index
 * written beside it. Maven calls the listener after it has planned a project's goals and before it
 * resolves anything for them (maven-core, LifecycleModuleBuilder#buildProject).
 */
@Named
@Singleton
public class ClasspathScope implements ProjectExecutionListener {
    static final String SCOPE_PROPERTY = "gradle-repl.classpathScope";

    @Override
    public void beforeProjectLifecycleExecution(ProjectExecutionEvent event) {
        String scope = event.getSession().getUserProperties().getProperty(SCOPE_PROPERTY);
        if (scope == null || event.getExecutionPlan() == null) {
            return;
        }
        for (MojoExecution execution : event.getExecutionPlan()) {
            MojoDescriptor mojo = execution.getMojoDescriptor();
            if (isBuildClasspath(mojo)) {
                // A copy: the descriptor may be shared with other executions; only this one is narrowed.
                MojoDescriptor narrowed = mojo.clone();
                narrowed.setDependencyResolutionRequired(scope);
                execution.setMojoDescriptor(narrowed);
            }
        }
    }

    private static boolean isBuildClasspath(MojoDescriptor mojo) {
        return "build-classpath".equals(mojo.getGoal())
                && "org.apache.maven.plugins".equals(mojo.getPluginDescriptor().getGroupId())
                && "maven-dependency-plugin".equals(mojo.getPluginDescriptor().getArtifactId());
    }

    @Override
    public void beforeProjectExecution(ProjectExecutionEvent event) {}

    @Override
    public void afterProjectExecutionSuccess(ProjectExecutionEvent event) {}

    @Override
    public void afterProjectExecutionFailure(ProjectExecutionEvent event) {}
}
